package acp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/plyhq/ply/internal/tools"
)

// clientFiles is a session's file tools' text source and sink when the
// client offers its file system (tools.TextFiles): reads through
// fs/read_text_file, so the model sees unsaved buffers, and writes
// through fs/write_text_file. What the client does not offer is
// errors.ErrUnsupported, and the tool uses the disk.
type clientFiles struct {
	s           *session
	read, write bool
}

var _ tools.TextFiles = clientFiles{}

// textFiles is the source and sink the client's capabilities give a
// session, or nil when it offers neither.
func textFiles(s *session, fs sdk.FileSystemCapabilities) tools.TextFiles {
	if !fs.ReadTextFile && !fs.WriteTextFile {
		return nil
	}
	return clientFiles{s: s, read: fs.ReadTextFile, write: fs.WriteTextFile}
}

func (f clientFiles) ReadTextFile(ctx context.Context, path string) (string, error) {
	if !f.read {
		return "", errors.ErrUnsupported
	}
	resp, err := f.s.agent.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: f.s.id, Path: path})
	if err != nil {
		return "", fmt.Errorf("fs/read_text_file: %w", err)
	}
	return resp.Content, nil
}

func (f clientFiles) WriteTextFile(ctx context.Context, path, content string) error {
	// The protocol library refuses a write request with empty content,
	// so emptying a file is done on the disk.
	if !f.write || content == "" {
		return errors.ErrUnsupported
	}
	if _, err := f.s.agent.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: f.s.id, Path: path, Content: content}); err != nil {
		return fmt.Errorf("fs/write_text_file: %w", err)
	}
	return nil
}
