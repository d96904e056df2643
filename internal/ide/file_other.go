//go:build !unix

package ide

import (
	"errors"
	"io"
	"os"
)

// readOwned reads a discovery file. Where files have no Unix owner and
// mode the file is read as it is: the extensions write it in the user's
// own temporary directory there.
func readOwned(path string, _ int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDiscoveryFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxDiscoveryFile {
		return nil, errors.New("it is too large to be a discovery file")
	}
	return data, nil
}
