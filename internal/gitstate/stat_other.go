//go:build !linux

package gitstate

import "io/fs"

// Elsewhere the reader has no stat data to compare with the index's, and
// cannot tell who owns the repository: it declines (ownerOf), and git
// answers.

func deviceOf(string) (uint64, bool)      { return 0, false }
func ownerOf(fs.FileInfo) (int, bool)     { return 0, false }
func statOf(fs.FileInfo) (statData, bool) { return statData{}, false }
