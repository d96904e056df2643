//go:build !linux

package gitstate

import "os"

func openDirFD(string) *os.File { return nil }

func (d *dir) open(rel string) (fileReader, error) { return d.readWithinFile(rel) }
