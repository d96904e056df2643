//go:build !linux

package gitstate

func openDirFD(string) int { return -1 }

func closeFD(int) {}

func (d *dir) open(rel string) (fileReader, error) { return d.readWithinFile(rel) }
