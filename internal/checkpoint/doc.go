// Package checkpoint records the state of a workspace before each user
// query and each batch of writing tool calls, and puts a workspace back to
// such a state (a rewind).
//
// It owns the store under a per-project directory the caller passes
// ($PLY_HOME/checkpoints/<project>), its file formats, the scan that
// records a tree, and the restore. It does not decide when to record or
// what the transcript says; the entry layer does.
//
// # What is recorded
//
// Every regular file and symbolic link under the workspace roots that the
// .gitignore and .plyignore files do not exclude, never .git: content (by
// SHA-256), permission bits and link targets. Files larger than the cap
// are recorded as skipped, and a restore says it left them alone.
// Directories are not recorded: they exist because files are in them, and
// a restore removes the ones its deletions leave empty.
//
// # Why a store of its own rather than a shadow git repository
//
// A shadow repository would need either the git program (absent on some
// machines, and its configuration, hooks and filters are the user's) or a
// Go implementation of git's object and index formats, a large dependency
// for a small need. What a checkpoint needs is narrower: blobs named by
// their hash, a list of paths per checkpoint, and a stat cache that lets
// an unchanged tree be recorded without reading a file. The store is that
// and no more:
//
//	objects/ab/cdef…   file contents, uncompressed, named by SHA-256
//	manifests/<id>     one checkpoint, compressed: the roots and one line per
//	                   path, or only the paths changed since its parent
//	HEAD               the id of the newest checkpoint (the stat cache)
//	restore.journal    present while a restore is under way
//
// Contents are stored uncompressed so that a cold checkpoint costs one
// read and one write per file and a restore is a copy; identical contents
// are stored once. A checkpoint that changes few files is stored as a
// delta from the previous one (chains of at most 32), so that a session
// of small edits adds kilobytes per checkpoint, not the whole listing. Nothing is written in the workspace and nothing of the
// user's repository (objects, refs, index) is read or touched.
//
// # Incremental recording
//
// A file whose size, modification and change times, inode and mode are
// those of the previous scan keeps its previous hash without being read.
// A file modified so close to the previous scan that a later write could
// keep the same times (the "racy" window of a coarse file system clock)
// is read again.
//
// # Crash safety
//
// Blobs and manifests are written to a temporary name and renamed. A
// restore first records the current state (the undo checkpoint), then
// writes a journal naming the target and the undo checkpoint, then applies
// the changes; each change is idempotent, and running the restore again
// after a crash reuses the journal's undo checkpoint and finishes the job.
package checkpoint
