package checkpoint

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultMaxFileBytes is the size cap when Options leaves it zero.
const DefaultMaxFileBytes = 10 << 20

// Options configures a Store.
type Options struct {
	// MaxFileBytes is the size above which a file is recorded as skipped;
	// 0 means DefaultMaxFileBytes.
	MaxFileBytes int64
	// Workers is the number of goroutines scanning; 0 means GOMAXPROCS.
	Workers int
	// MaxFiles and MaxReadBytes bound one checkpoint (0 means the
	// defaults): a workspace that is really a home directory or a disk
	// is not copied into the store; Checkpoint fails with ErrTooLarge.
	MaxFiles     int64
	MaxReadBytes int64
	// Track keeps, on Linux, a watch on every directory of the workspace
	// for the life of the Store, so that a checkpoint lists again only the
	// directories where something changed (see the package doc). For a
	// long-lived Store, such as a session's; Close releases the watches.
	Track bool
	// TrustPlyIgnore lets .plyignore files exclude files git tracks: for
	// a workspace the user trusts. Otherwise they exclude only untracked
	// paths (see plyignore.go).
	TrustPlyIgnore bool
}

// Defaults of the bounds of one checkpoint.
const (
	DefaultMaxFiles     = 250_000
	DefaultMaxReadBytes = 2 << 30
)

// ErrTooLarge is returned when a workspace exceeds the bounds of a
// checkpoint.
var ErrTooLarge = errors.New("workspace too large to checkpoint")

// Store is the checkpoints of one project. Its methods may be called from
// several goroutines; scans and restores are serialised.
type Store struct {
	dir  string
	opts Options

	mu     sync.Mutex // serialises Checkpoint and Restore
	cache  *statCache // the newest scan, nil until loaded
	tr     *tracker   // what changed since cache, with Options.Track; nil when unknown
	closed bool       // Close was called: track no more
	// untrackable is set when the workspace has more directories than
	// the tracker may watch: it is not tried again.
	untrackable bool
	scans       int // full scans made, for tests
	plyIgnore   plyIgnores

	// What was saved ahead of reserved checkpoints (ahead.go): the sets
	// by id, guarded by aheadMu; the set of the checkpoint being taken,
	// and the directories its saved paths are in, which the next tracked
	// checkpoint lists again (guarded by mu).
	aheadMu   sync.Mutex
	aheadSets map[string]*aheadSet
	ahead     *aheadSet
	recheck   map[trackedDir]bool

	packs packSet // the packs of contents (packset.go)
	pk    *packer // the pack of the checkpoint being taken (guarded by mu)
	// checked holds, during a restore, the contents it has checked and
	// will write, by hash (guarded by mu).
	checked map[string][]byte
}

// Close releases the change tracker. The Store remains usable; its
// checkpoints scan in full.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.tr != nil {
		s.tr.close()
		s.tr = nil
	}
	return nil
}

// ErrNotFound is returned for an id the store does not hold.
var ErrNotFound = errors.New("checkpoint not found")

// Open returns the store in dir, creating it when needed.
func Open(dir string, opts Options) (*Store, error) {
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	if opts.MaxReadBytes <= 0 {
		opts.MaxReadBytes = DefaultMaxReadBytes
	}
	for _, d := range []string{"objects", "manifests"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, fmt.Errorf("checkpoint: create store: %w", err)
		}
	}
	s := &Store{dir: dir, opts: opts}
	s.packs.dir = filepath.Join(dir, "packs")
	s.sweepStore()
	return s, nil
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) blobPath(hash string) string {
	return filepath.Join(s.dir, "objects", hash[:2], hash[2:])
}

// putBlob stores data under hash unless it is there already, and
// reports whether it wrote it: it is not synced yet (syncBlobs). What is
// stored is data compressed or as it is (object.go); a stored object of
// neither size, left short by a crash before it was synced, is written
// again.
func (s *Store) putBlob(hash string, data []byte) (wrote bool, err error) {
	p := s.blobPath(hash)
	fi, err := os.Lstat(p)
	if err == nil && fi.Size() == int64(len(data)) {
		return false, nil
	}
	obj := encodeObject(data)
	if err == nil && fi.Size() == int64(len(obj)) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return false, &storeError{fmt.Errorf("checkpoint: store blob: %w", err)}
	}
	// The temporary file goes in objects/, where Open looks for those a
	// killed process left, rather than in one of its 256 directories.
	if err := writeAtomic(p, tempName(filepath.Join(s.dir, "objects", hash)), obj, 0o600); err != nil {
		return false, &storeError{err}
	}
	return true, nil
}

// storeError is a failure to write into the store (a full disk), as
// opposed to one to read the workspace: it fails the checkpoint, where a
// file that cannot be read is left out of it.
type storeError struct{ err error }

func (e *storeError) Error() string { return e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

// hasLoose reports whether the content hash is stored as a loose object
// (whole or not).
func (s *Store) hasLoose(hash string) bool {
	_, err := os.Lstat(s.blobPath(hash))
	return err == nil
}

// readBlob returns the content hash of size bytes, checked.
func (s *Store) readBlob(hash string, size int64) ([]byte, error) {
	data, err := s.readContent(hash, size)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: read saved content %s: %w", hash[:min(12, len(hash))], err)
	}
	return data, nil
}

// readContent returns the content hash of size bytes, checked, from its
// loose object or else from a pack: an error wrapping fs.ErrNotExist
// when neither holds it, errDecode when what is stored is damaged.
func (s *Store) readContent(hash string, size int64) ([]byte, error) {
	if len(hash) < 3 {
		return nil, fmt.Errorf("%w: not a content hash", errDecode)
	}
	raw, err := os.ReadFile(s.blobPath(hash))
	if err == nil {
		data, derr := decodeObject(raw, hash, size)
		if derr == nil {
			return data, nil
		}
		if data, err := s.packs.read(hash, size); err == nil {
			return data, nil // a sound copy in a pack
		}
		return nil, derr
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	data, perr := s.packs.read(hash, size)
	if errors.Is(perr, errNotPacked) {
		return nil, err
	}
	return data, perr
}

// tempName returns a fresh temporary name for the store's file path.
func tempName(path string) string { return fmt.Sprintf("%s.tmp-%s", path, randHex(6)) }

// writeAtomic writes data to the temporary file tmp, on the file system
// of path, and renames it to path.
func writeAtomic(path, tmp string, data []byte, perm fs.FileMode) error {
	if err := os.WriteFile(tmp, data, perm); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("checkpoint: write %s: %w", filepath.Base(path), err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("checkpoint: write %s: %w", filepath.Base(path), err)
	}
	return nil
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// newID returns a fresh checkpoint id that sorts by time.
func newID(t time.Time) string {
	return fmt.Sprintf("%016x-%s", t.UnixNano(), randHex(3))
}

func validID(id string) bool {
	if len(id) < 8 || len(id) > 64 {
		return false
	}
	for _, c := range []byte(id) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == '-') {
			return false
		}
	}
	return true
}

func (s *Store) manifestPath(id string) string { return filepath.Join(s.dir, "manifests", id) }

// saveManifest writes m, compressed when its text is over one disk
// block: a manifest lists every path, and its text (paths and hashes)
// shrinks about tenfold, which is most of what a session of small edits
// adds to the store. A smaller one (the delta of a checkpoint that
// changed a few files) takes one block either way and is written as it
// is; loading reads both. The new contents blobs that m names are
// synced (syncBlobs) while the manifest is written and synced under a
// temporary name, and the manifest takes its name only once both are on
// disk.
func (s *Store) saveManifest(m *Manifest, blobs []string) error {
	data := m.encode()
	if len(data) > rawManifestMax {
		var err error
		if data, err = deflate(data); err != nil {
			return err
		}
	}
	if err := writeDurableAfter(s.manifestPath(m.ID), data, s.blobSync(blobs)); err != nil {
		return err
	}
	if syncHook != nil {
		syncHook("manifest " + m.ID)
	}
	return nil
}

// rawManifestMax is the largest manifest text stored uncompressed: one
// block of the usual file systems.
const rawManifestMax = 4096

// deflaters holds flate writers for reuse: setting one up clears about
// a megabyte of tables, which cost more than compressing a manifest of
// a few hundred paths.
var deflaters = sync.Pool{New: func() any {
	zw, _ := flate.NewWriter(nil, flate.BestSpeed)
	return zw
}}

// deflate compresses data at flate's fastest level.
func deflate(data []byte) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(len(data)/4 + 64)
	zw := deflaters.Get().(*flate.Writer)
	zw.Reset(&b)
	zw.Write(data)
	err := zw.Close()
	zw.Reset(nil)
	deflaters.Put(zw)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: compress manifest: %w", err)
	}
	return b.Bytes(), nil
}

// Load returns the checkpoint id, whole.
func (s *Store) Load(id string) (*Manifest, error) { return s.resolve(id, maxDepth+1) }

// resolve loads id and, for a delta, its chain of parents, each of
// smaller depth than limit, so that a crafted chain cannot loop.
func (s *Store) resolve(id string, limit int) (*Manifest, error) {
	m, err := s.loadRaw(id)
	if err != nil || m.Parent == "" {
		return m, err
	}
	if m.Depth >= limit {
		return nil, fmt.Errorf("%w: checkpoint %s: its chain of parents does not end", errManifest, id)
	}
	base, err := s.resolve(m.Parent, m.Depth)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: its parent: %w", id, err)
	}
	if !slices.Equal(base.Roots, m.Roots) {
		return nil, fmt.Errorf("%w: checkpoint %s: roots differ from its parent's", errManifest, id)
	}
	return applyDelta(base, m), nil
}

// loadRaw reads the manifest id as stored.
func (s *Store) loadRaw(id string) (*Manifest, error) {
	if !validID(id) {
		return nil, fmt.Errorf("checkpoint %q: %w", id, ErrNotFound)
	}
	data, err := os.ReadFile(s.manifestPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("checkpoint %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: load %s: %w", id, err)
	}
	if !bytes.HasPrefix(data, []byte(manifestMagic)) {
		if data, err = io.ReadAll(flate.NewReader(bytes.NewReader(data))); err != nil {
			return nil, fmt.Errorf("checkpoint: load %s: %w", id, err)
		}
	}
	return parseManifest(id, data)
}

func (s *Store) head() string {
	b, err := os.ReadFile(filepath.Join(s.dir, "HEAD"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func (s *Store) setHead(id string) error {
	// Not synced: HEAD only says where the stat cache starts, and an
	// older or missing one after a crash costs reads, never a wrong
	// checkpoint.
	head := filepath.Join(s.dir, "HEAD")
	if err := writeAtomic(head, tempName(head), []byte(id+"\n"), 0o600); err != nil {
		return err
	}
	if syncHook != nil {
		syncHook("head " + id)
	}
	return nil
}

// holds reports whether the store has the manifest id.
func (s *Store) holds(id string) bool {
	_, err := os.Lstat(s.manifestPath(id))
	return err == nil
}

// IDs returns the ids of the stored checkpoints, oldest first.
func (s *Store) IDs() ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(s.dir, "manifests"))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: list: %w", err)
	}
	var ids []string
	for _, e := range ents {
		if validID(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// Prune removes the checkpoints created before cutoff, except the
// newest, and then the contents no remaining checkpoint names.
func (s *Store) Prune(cutoff time.Time) (removed int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	unlock, err := s.lock(ctx)
	if err != nil {
		return 0, err
	}
	defer unlock()
	ids, err := s.IDs()
	if err != nil {
		return 0, err
	}
	// A kept delta keeps its chain of parents; the contents to keep are
	// those named by any kept manifest as stored.
	raw := map[string]*Manifest{}
	kept := map[string]bool{}
	for i, id := range ids {
		m, err := s.loadRaw(id)
		if err != nil {
			continue // unreadable: nothing can be restored from it anyway
		}
		raw[id] = m
		if !m.Created.Before(cutoff) || i == len(ids)-1 || id == s.head() {
			kept[id] = true
		}
	}
	for id := range kept {
		for p := raw[id].Parent; p != "" && raw[p] != nil && !kept[p]; p = raw[p].Parent {
			kept[p] = true
		}
	}
	keep := map[string]bool{}
	for id, m := range raw {
		if !kept[id] {
			if os.Remove(s.manifestPath(id)) == nil {
				removed++
			}
			os.Remove(s.changesPath(id))
			continue
		}
		for _, e := range m.Entries {
			if e.Kind == KindFile {
				keep[e.Hash] = true
			}
		}
	}
	// What was saved ahead of a checkpoint never stored (ply stopped
	// first) is kept as long as a checkpoint of its age would be.
	for _, id := range s.aheadIDs() {
		a, err := s.loadAhead(id)
		if s.holds(id) || err == nil && a.Created.Before(cutoff) {
			os.Remove(s.aheadPath(id))
			continue
		}
		if a != nil {
			for _, e := range a.Entries {
				if e.Kind == KindFile {
					keep[e.Hash] = true
				}
			}
		}
	}
	if removed == 0 {
		return 0, nil
	}
	objs := filepath.Join(s.dir, "objects")
	dirs, err := os.ReadDir(objs)
	if err != nil {
		return removed, fmt.Errorf("checkpoint: prune: %w", err)
	}
	for _, d := range dirs {
		files, _ := os.ReadDir(filepath.Join(objs, d.Name()))
		for _, f := range files {
			if !keep[d.Name()+f.Name()] {
				os.Remove(filepath.Join(objs, d.Name(), f.Name()))
			}
		}
	}
	defer s.packs.dropCache()
	if err := s.prunePacks(keep); err != nil {
		return removed, fmt.Errorf("checkpoint: prune packs: %w", err)
	}
	return removed, nil
}
