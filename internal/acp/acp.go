// Package acp serves ply as an Agent Client Protocol agent on a pair of
// streams (JSON-RPC 2.0, one message a line): it owns the mapping between
// the protocol's sessions, prompts, updates and permission requests and
// ply's loop (client rounds, the scheduler's tool calls and approvals).
// The layers themselves are built by the caller, per session, through
// Config.NewSession.
package acp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/inbox"
	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
	"github.com/plyhq/ply/internal/scheduler"
	"github.com/plyhq/ply/internal/tools"
)

// Rounds runs one round-trip with the model (client.Client).
type Rounds = loop.Rounds

// ToolRunner runs a round's tool calls and returns their outcomes.
type ToolRunner = loop.Tools

// Session is one conversation's layers, built for a working directory.
type Session struct {
	ID     string
	Rounds Rounds
	Tools  ToolRunner
	// Mode is the approval mode at start.
	Mode string
	// Controls is probed for the session's controls (modeSwitcher,
	// modelSwitcher, effortSetter, as net/http probes a ResponseWriter
	// for Flusher); what it lacks, the client cannot change.
	Controls any
	// Recorder keeps the session's record of each prompt's loop; nil
	// records nothing. TurnCap is the per-turn tool-call cap the client
	// is asked to raise when it is reached (nil: the prompt stops with
	// max_turn_requests).
	Recorder loop.Recorder
	TurnCap  loop.TurnCap
	// History is a loaded session's conversation; First is what must go
	// before its next prompt (results of calls lost with the process
	// that wrote it).
	History []llm.Message
	First   []llm.Part
	// Close releases the session's layers.
	Close func()

	// Models are the models the client may pick and Model the one in
	// use. Effort is the reasoning tier ("" the provider's default).
	Models []Model
	Model  string
	Effort string
	// Commands are what the client may run as a prompt "/name args".
	Commands []Command

	// Background work (inbox.go): Inbox, when set, holds the rounds no
	// user typed (a background task's notification, a schedule's firing,
	// a teammate's message).
	Inbox *inbox.Inbox
}

// The session's controls a client reaches (Session.Controls).
type (
	modeSwitcher interface {
		Mode() string
		SetMode(name string) error
	}
	modelSwitcher interface{ SetModel(name string) error }
	effortSetter  interface{ SetEffort(name string) error }
)

func (s *Session) modes() modeSwitcher   { m, _ := s.Controls.(modeSwitcher); return m }
func (s *Session) models() modelSwitcher { m, _ := s.Controls.(modelSwitcher); return m }
func (s *Session) efforts() effortSetter { e, _ := s.Controls.(effortSetter); return e }

// Model is a model a session may switch to.
type Model struct {
	ID, Name, Description string
}

// Hooks are what the agent plugs into a session's scheduler: the approver
// that asks the client, and the callback that reports call states.
type Hooks struct {
	Approver scheduler.Approver
	OnUpdate func(*scheduler.Call)
	// LiveOutput is the sink for a running call's output
	// (scheduler.WithLiveOutput).
	LiveOutput func(*scheduler.Call) tools.Output
	// Files is the client's file system when it offers one (the file
	// tools' text goes through it: Workspace.SetTextFiles); nil otherwise.
	Files tools.TextFiles
	// Terminals are the client's terminals when it offers them; nil
	// otherwise. Shell commands run there (Shell.SetTerminals) only once
	// the client picks the "terminal" config option's "editor" value;
	// until then RunInTerminal says errors.ErrUnsupported and they run in
	// ply's own runner.
	Terminals tools.Terminals
	// Questions answers the model's ask_user_question through the client
	// (questions.go).
	Questions tools.QuestionAsker
}

// MCPServer is an MCP server the client asks a session to use.
type MCPServer struct {
	Name string
	// Transport is "stdio", "http" or "sse".
	Transport string
	Command   string
	Args      []string
	Env       map[string]string
	URL       string
	Headers   map[string]string
}

// Open says what session the client asks for.
type Open struct {
	CWD string
	MCP []MCPServer
}

// mcpServers converts the client's MCP server list.
func mcpServers(in []sdk.McpServer) []MCPServer {
	var out []MCPServer
	for _, m := range in {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			out = append(out, MCPServer{Name: m.Stdio.Name, Transport: "stdio", Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env})
		case m.Http != nil:
			out = append(out, MCPServer{Name: m.Http.Name, Transport: "http", URL: m.Http.Url, Headers: headers(m.Http.Headers)})
		case m.Sse != nil:
			out = append(out, MCPServer{Name: m.Sse.Name, Transport: "sse", URL: m.Sse.Url, Headers: headers(m.Sse.Headers)})
		}
	}
	return out
}

func headers(hs []sdk.HttpHeader) map[string]string {
	out := map[string]string{}
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}

// SessionSummary is a saved session as session/list shows it.
type SessionSummary struct {
	ID, CWD, Title string
	Updated        time.Time
}

// Config configures the agent.
type Config struct {
	// NewSession builds the layers for a new session in cwd.
	NewSession func(ctx context.Context, o Open, h Hooks) (*Session, error)
	// LoadSession opens the saved session id of cwd; nil when sessions
	// cannot be loaded.
	LoadSession func(ctx context.Context, o Open, id string, h Hooks) (*Session, error)
	// ListSessions lists the saved sessions of cwd ("" for the directory
	// ply started in), newest first; nil when they cannot be listed.
	ListSessions func(cwd string) ([]SessionSummary, error)
	Version      string
	Log          *slog.Logger
}

// Modes are ply's approval modes, in the order they are offered.
var Modes = []sdk.SessionMode{
	{Id: "plan", Name: "Plan", Description: sdk.Ptr("Read and plan only; no edits or commands")},
	{Id: "default", Name: "Default", Description: sdk.Ptr("Ask before edits and commands")},
	{Id: "auto-edit", Name: "Auto edit", Description: sdk.Ptr("Edit files without asking; ask before commands")},
	{Id: "auto", Name: "Auto", Description: sdk.Ptr("Edit files and run commands without asking, commands in a sandbox that writes only the workspace and has no network; everything can be rewound")},
	{Id: "yolo", Name: "YOLO", Description: sdk.Ptr("Run every tool call without asking")},
}

// Serve runs the agent on in and out until in ends or ctx is done. Lines
// that are not JSON objects are answered with a JSON-RPC error.
func Serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	track := newPending()
	a := &agent{cfg: cfg, ctx: ctx, sessions: map[sdk.SessionId]*session{}}
	w := &lockedWriter{w: out, track: track, onAnswer: a.answered}
	pr, pw := io.Pipe()
	conn := sdk.NewAgentSideConnection(a, w, pr)
	conn.SetLogger(cfg.Log)
	a.conn = conn
	// Messages flow only from here on: a handler sees a.conn set.
	go func() {
		err := filterLines(in, pw, w, track)
		// The client closed its end: running prompts stop, and the
		// answers in flight go out before the connection closes.
		a.cancelAll()
		track.wait(drainTimeout)
		pw.CloseWithError(err)
	}()
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	pr.Close()
	a.closeAll()
	return nil
}

// drainTimeout bounds the wait for answers once the client's input ended.
const drainTimeout = 5 * time.Second

// lockedWriter serialises whole-line writes of the connection and of the
// line filter's error answers.
// onAnswer sees each answer once it is written; it must not write.
type lockedWriter struct {
	mu       sync.Mutex
	w        io.Writer
	track    *pending
	onAnswer func(answer)
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	if err == nil {
		if a, ok := l.track.answered(p); ok && l.onAnswer != nil {
			l.onAnswer(a)
		}
	}
	return n, err
}

// agent implements the protocol's agent side.
type agent struct {
	cfg  Config
	ctx  context.Context // the server's lifetime: sessions' layers live in it
	conn *sdk.AgentSideConnection

	mu       sync.Mutex
	sessions map[sdk.SessionId]*session
	// fs is what the client's initialize offered of its file system;
	// terminal whether it offered terminals.
	fs       sdk.FileSystemCapabilities
	terminal bool
}

// hooks are what s plugs into its session's layers.
func (a *agent) hooks(s *session) Hooks {
	a.mu.Lock()
	fs, terminal := a.fs, a.terminal
	a.mu.Unlock()
	h := Hooks{Approver: s, OnUpdate: s.onUpdate, LiveOutput: s.liveOutput, Files: textFiles(s, fs), Questions: s}
	if terminal {
		h.Terminals = clientTerminals{s}
		s.mu.Lock()
		s.terminals = true
		s.mu.Unlock()
	}
	return h
}

// cancelAll stops every running prompt.
func (a *agent) cancelAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.sessions {
		s.cancel()
	}
}

func (a *agent) closeAll() {
	a.mu.Lock()
	ss := a.sessions
	a.sessions = map[sdk.SessionId]*session{}
	a.mu.Unlock()
	for _, s := range ss {
		s.cancel()
		s.wait()
		if s.core.Close != nil {
			s.core.Close()
		}
	}
}

func (a *agent) session(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	if !ok {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no session %q", id)})
	}
	return s, nil
}

func (a *agent) Initialize(ctx context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.fs, a.terminal = p.ClientCapabilities.Fs, p.ClientCapabilities.Terminal
	a.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:     a.cfg.LoadSession != nil,
			McpCapabilities: sdk.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: sdk.SessionCapabilities{
				Close:  &sdk.SessionCloseCapabilities{},
				List:   a.listCapability(),
				Resume: a.resumeCapability(),
			},
			PromptCapabilities: sdk.PromptCapabilities{
				Image:           true,
				EmbeddedContext: true,
			},
		},
		AgentInfo:   &sdk.Implementation{Name: "ply", Title: sdk.Ptr("ply"), Version: a.cfg.Version},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate accepts anything: ply's provider is configured by the
// environment and settings, not through the protocol.
func (a *agent) Authenticate(ctx context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

func (a *agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	s := &session{agent: a}
	core, err := a.cfg.NewSession(a.ctx, Open{CWD: p.Cwd, MCP: mcpServers(p.McpServers)}, a.hooks(s))
	if err != nil {
		return sdk.NewSessionResponse{}, fmt.Errorf("starting a session in %s: %w", p.Cwd, err)
	}
	s.core, s.id = core, sdk.SessionId(core.ID)
	s.start()
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	return sdk.NewSessionResponse{
		SessionId:     s.id,
		Modes:         s.modeState(),
		Models:        s.modelState(),
		ConfigOptions: s.configOptions(),
	}, nil
}

func (a *agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	if c, args := commandOf(p.Prompt, s.core.Commands); c != nil {
		return s.command(ctx, c, args)
	}
	parts, err := promptParts(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	return s.prompt(ctx, parts)
}

func (a *agent) Cancel(ctx context.Context, p sdk.CancelNotification) error {
	s, err := a.session(p.SessionId)
	if err != nil {
		return err
	}
	s.cancel()
	return nil
}

func (a *agent) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	if err := s.setMode(string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	return sdk.SetSessionModeResponse{}, nil
}

func (a *agent) CloseSession(ctx context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	a.mu.Lock()
	s, ok := a.sessions[p.SessionId]
	delete(a.sessions, p.SessionId)
	a.mu.Unlock()
	if ok {
		s.cancel()
		s.wait()
		if s.core.Close != nil {
			s.core.Close()
		}
	}
	return sdk.CloseSessionResponse{}, nil
}

func (a *agent) listCapability() *sdk.SessionListCapabilities {
	if a.cfg.ListSessions == nil {
		return nil
	}
	return &sdk.SessionListCapabilities{}
}

// ListSessions lists ply's saved sessions of a directory, all in one page.
func (a *agent) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	if a.cfg.ListSessions == nil {
		return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
	}
	cwd := ""
	if p.Cwd != nil {
		cwd = *p.Cwd
	}
	list, err := a.cfg.ListSessions(cwd)
	if err != nil {
		return sdk.ListSessionsResponse{}, fmt.Errorf("listing sessions: %w", err)
	}
	out := sdk.ListSessionsResponse{Sessions: make([]sdk.SessionInfo, 0, len(list))}
	for _, s := range list {
		info := sdk.SessionInfo{SessionId: sdk.SessionId(s.ID), Cwd: s.CWD}
		if s.Title != "" {
			info.Title = sdk.Ptr(s.Title)
		}
		if !s.Updated.IsZero() {
			info.UpdatedAt = sdk.Ptr(s.Updated.UTC().Format(time.RFC3339))
		}
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}
