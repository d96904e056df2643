package headless

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/plyhq/ply/internal/llm"
	"github.com/plyhq/ply/internal/loop"
)

// The stream-json message shapes, as Qwen Code and Claude Code's headless
// modes print them and their SDKs read them.

// Usage is the stream-json usage object.
type Usage struct {
	InputTokens          int `json:"input_tokens"`
	OutputTokens         int `json:"output_tokens"`
	CacheReadInputTokens int `json:"cache_read_input_tokens"`
	TotalTokens          int `json:"total_tokens"`
	ReasoningTokens      int `json:"reasoning_tokens,omitempty"`
}

// UsageOf is u as a stream-json usage object; zero when u is nil.
func UsageOf(u *llm.Usage) Usage {
	if u == nil {
		return Usage{}
	}
	total := u.TotalTokens
	if total == 0 {
		total = u.InputTokens + u.OutputTokens
	}
	return Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadInputTokens: u.CachedTokens, TotalTokens: total, ReasoningTokens: u.ReasoningTokens}
}

// SystemInit is the first message of a run.
type SystemInit struct {
	Type           string      `json:"type"`
	Subtype        string      `json:"subtype"`
	UUID           string      `json:"uuid"`
	SessionID      string      `json:"session_id"`
	CWD            string      `json:"cwd"`
	Tools          []string    `json:"tools"`
	MCPServers     []MCPServer `json:"mcp_servers"`
	Model          string      `json:"model"`
	PermissionMode string      `json:"permission_mode"`
	SlashCommands  []string    `json:"slash_commands"`
	Version        string      `json:"ply_version"`
	Agents         []string    `json:"agents"`
	// Skills names the skills the model may load and the user may type
	// as /name (which is why they are slash commands too).
	Skills []string `json:"skills"`
}

// MCPServer is one MCP server in the init message.
type MCPServer struct {
	Name   string `json:"name"`
	Status string `json:"status"` // connected, failed
}

// Block is one content block of an assistant or user message.
type Block struct {
	Type string `json:"type"`
	// text
	Text string `json:"text,omitempty"`
	// thinking
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// tool_result
	ToolUseID string `json:"tool_use_id,omitempty"`
	IsError   *bool  `json:"is_error,omitempty"`
	Content   any    `json:"content,omitempty"`
}

// AssistantBody is the message field of an assistant message.
type AssistantBody struct {
	ID         string  `json:"id"`
	Type       string  `json:"type"`
	Role       string  `json:"role"`
	Model      string  `json:"model"`
	Content    []Block `json:"content"`
	StopReason *string `json:"stop_reason"`
	Usage      Usage   `json:"usage"`
}

// Assistant is an assistant message; it holds blocks of one kind.
type Assistant struct {
	Type            string        `json:"type"`
	UUID            string        `json:"uuid"`
	SessionID       string        `json:"session_id"`
	ParentToolUseID *string       `json:"parent_tool_use_id"`
	Message         AssistantBody `json:"message"`
}

// UserBody is the message field of a user message.
type UserBody struct {
	Role    string  `json:"role"`
	Content []Block `json:"content"`
}

// User is a user message carrying tool results.
type User struct {
	Type            string   `json:"type"`
	UUID            string   `json:"uuid"`
	SessionID       string   `json:"session_id"`
	ParentToolUseID *string  `json:"parent_tool_use_id"`
	Message         UserBody `json:"message"`
}

// Denial is a tool call refused by the permission policy.
type Denial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// Result is the last message of a run.
type Result struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	// PlySubtype is ply's own subtype when Subtype had to be mapped onto
	// the SDK's union (an interrupt, a budget).
	PlySubtype    string `json:"ply_subtype,omitempty"`
	UUID          string `json:"uuid"`
	SessionID     string `json:"session_id"`
	IsError       bool   `json:"is_error"`
	DurationMS    int64  `json:"duration_ms"`
	DurationAPIMS int64  `json:"duration_api_ms"`
	NumTurns      int    `json:"num_turns"`
	Result        string `json:"result"`
	Error         string `json:"error,omitempty"`
	// StructuredOutput is the object of a --json-schema run.
	StructuredOutput  json.RawMessage `json:"structured_output,omitempty"`
	Usage             Usage           `json:"usage"`
	PermissionDenials []Denial        `json:"permission_denials"`
}

// Result subtypes.
const (
	SubtypeSuccess        = "success"
	SubtypeError          = "error_during_execution"
	SubtypeMaxTurns       = "error_max_turns"
	SubtypeMaxToolCalls   = "error_max_tool_calls"
	SubtypeMaxWallTime    = "error_max_wall_time"
	SubtypeLoopDetected   = "error_loop_detected"
	SubtypeCancelled      = "error_cancelled"
	SubtypeStructuredFail = "error_max_structured_output_retries"
	SubtypeUnsaved        = "error_session_not_saved"
)

func newUUID() string { return uuid.NewString() }

// ToolInput returns the call's arguments as a JSON value (loop.RawArgs).
func ToolInput(args string) json.RawMessage { return loop.RawArgs(args) }

// CompactBoundary says that the chat summarised the history before a
// request: from here on the model sees the summary instead of what came
// before it. Claude Code's SDKs know it by this subtype.
type CompactBoundary struct {
	Type            string          `json:"type"`    // "system"
	Subtype         string          `json:"subtype"` // "compact_boundary"
	UUID            string          `json:"uuid"`
	SessionID       string          `json:"session_id"`
	ParentToolUseID *string         `json:"parent_tool_use_id"`
	Metadata        CompactMetadata `json:"compact_metadata"`
}

// CompactMetadata is what a CompactBoundary says of the summary: what
// started it ("auto": the history outgrew the context window) and the
// estimated tokens before and after.
type CompactMetadata struct {
	Trigger    string `json:"trigger"`
	PreTokens  int    `json:"pre_tokens"`
	PostTokens int    `json:"post_tokens"`
}
