//go:build !linux

package main

import "errors"

// dropFromPageCache is Linux-only (see pagecache_linux.go).
func dropFromPageCache(string) error {
	return errors.New("dropping a file from the page cache is done on Linux only")
}
