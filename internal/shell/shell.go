// Package shell classifies shell commands by parsing them with a real shell
// parser: whether a command is read-only (and so safe to run in parallel and
// to auto-approve), and which simple commands it is made of (for permission
// rules). It fails closed: anything it cannot parse or does not know is not
// read-only. It runs nothing.
package shell

// IsReadOnly reports whether every part of command is a known read-only
// command with safe flags and no output redirection.
//
// UNFINISHED: placeholder that always says "not read-only" (fail closed)
// until the parser-based classifier lands.
func IsReadOnly(command string) bool { return false }
