//go:build !unix

package tools

import "path/filepath"

// writeBeneath writes by path where there are no directory descriptors
// to walk with: the path was checked by Resolve, but a symbolic link
// swapped in after the check is not caught on this platform.
func writeBeneath(root, rel string, data []byte) (bool, error) {
	return writeFileAtomic(filepath.Join(root, rel), data)
}
