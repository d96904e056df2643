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
// SHA-256), permission bits and link targets. Unless the workspace is
// trusted (Options.TrustPlyIgnore), a .plyignore excludes only what git
// does not track, read from the index (plyignore.go). Files larger than the cap
// are recorded as skipped, and a restore says it left them alone.
// Directories are not recorded: they exist because files are in them, and
// a restore removes the ones its deletions leave empty.
//
// A restore deletes the recorded paths its target does not hold, except
// those the target's own ignore rules excluded: the .gitignore and
// .plyignore files it recorded, read back from the store, decide, not the
// current ones. A file ignored when the target was made was never
// recorded, so its absence says nothing; the rules changing since (the
// model dropping ".env" from .gitignore) must not make a rewind delete it.
// The other way round, a path the target recorded that is ignored now
// is restored; when it exists with other content, which the undo
// checkpoint (made under the current rules) does not hold, that content
// is added to the undo checkpoint first, or, over the size cap, the file
// is left alone.
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
//	objects/ab/cdef…   file contents, named by their SHA-256, zstd-compressed
//	                   when that pays (object.go)
//	packs/<id>.pack    many contents compressed together in blocks of about
//	                   2 MiB, with an index by SHA-256 (pack.go)
//	manifests/<id>     one checkpoint: the roots and one line per path, or
//	                   only the paths changed since its parent; compressed
//	                   when over one disk block (4 KiB)
//	manifests/<id>.changes  what differs from the checkpoint it was compared
//	                   with, a hint for counting changes (changes.go)
//	HEAD               the id of the newest checkpoint (the stat cache)
//	restore.journal    present while a restore is under way
//
// A checkpoint that stores many new small contents (32 or more, the first
// checkpoint of a store above all) writes them into one pack: blocks of
// about 2 MiB compressed together at zstd's better level, so that a
// file shares the dictionary of its neighbours, and one file on disk
// rather than thousands. This module's sources (1,321 files, mostly small
// and commented) take 0.29 of the tree so (0.30 with blocks of 1 MiB),
// against 0.44 compressed one by one, and a third of that in disk blocks;
// reading one content decompresses its block. A checkpoint of a few new contents, and any
// content over half a block, stores them loose: compressed with zstd at
// its fastest level, one file each, or as they are when that saves less
// than an eighth (contents already compressed, small files). Stores
// written before contents were compressed or packed hold them loose as
// they are, and still restore; loose and packed contents coexist, a
// loose one read first. Every read checks a content's size and hash,
// compressed, packed or not; a pack whose index is damaged is refused
// whole, and a content it may hold is reported damaged, not missing.
// Identical contents are stored once. A checkpoint that changes few files is stored as a
// delta from the previous one (chains of at most 32), so that a session
// of small edits adds kilobytes per checkpoint, not the whole listing. Nothing is written in the workspace and nothing of the
// user's repository (objects, refs, index) is read or touched; a scan
// only removes ply's own temporary files whose writer is gone (temp.go),
// and never records any.
//
// # Incremental recording
//
// A file whose size, modification and change times, inode and mode are
// those of the previous scan keeps its previous hash without being read.
// A file modified so close to the previous scan that a later write could
// keep the same times (the "racy" window of a coarse file system clock)
// is read again.
//
// # Change tracking (Linux)
//
// A scan costs a stat per file: for 50,000 files, 0.4 to 0.5 s of CPU on
// the small shared VM it was measured on, of which the stats alone are
// about 90 ms.
// A Store opened with Options.Track (a session's) keeps an inotify watch
// on every directory its scans list, added before the directory is read,
// so that any later change to an entry or to a file's content, mode or
// times is reported. A checkpoint then reads the queued events and lists
// again only the directories where something happened (with their
// subtrees when a directory was made, moved or removed); a workspace where
// nothing happened is recorded in microseconds, without a system call per
// file. It falls back to a full scan, and starts its watches afresh, when
// it cannot tell: the queue overflowed, a watch could not be added (the
// limit of watches, a quarter of fs.inotify.max_user_watches, is reached),
// a .gitignore, .plyignore or .git/info/exclude changed, a root was moved,
// or the stored checkpoint it started from was pruned by another process.
// It is never trusted across processes: a new Store scans first.
//
// What inotify cannot see: a file with several names (hard links) may
// change through a name no watch covers; such files, known by their link
// count, are stat'ed at every checkpoint, and the other names of a file
// found with several are checked too. Left unseen: a hard link made after
// the scan from an ignored directory or from outside the workspace to a
// recorded file, then written through; writes through a shared memory
// mapping (which update a file without a write call). A later full scan
// (a new process, a change of ignore rules) records them.
//
// # Checkpoints named before they are recorded
//
// The first checkpoint of a process scans the whole tree, and in a new
// store reads and copies every file: seconds for tens of thousands of
// files. A session takes it in the background, under an id
// it reserves first (NewID, then CheckpointAs), so that a prompt can name
// it in the transcript at once. A write that names its files need not
// wait for the rest: SaveAhead stores those files' state into it first,
// durably, and the scan records them as saved (ahead.go); a crash before
// the checkpoint is stored leaves a checkpoint that holds only those
// files, which a restore puts back, leaving every other file as it is.
// Any other write (a shell command may write anywhere), and every
// rewind, waits for the whole checkpoint (see the core package). A checkpoint
// taken under a reserved id is stored even when nothing changed, as a
// delta naming no path, so that the id the transcript holds exists.
//
// # Counting changes without loading manifests
//
// Each checkpoint stored also writes a change record: the checkpoint it
// was compared with (the stat cache's, its parent) and, per path whose
// content differs between them, the content before and after. ChangeCounts
// follows the records back from the newest checkpoint and counts, for each
// checkpoint it passes, the paths whose content at that point differs from
// the newest's: what len(Diff) would say, without a manifest loaded (a
// whole manifest of 200,000 paths takes a second and tens of megabytes to
// parse) and without a scan of the tree. `ply rewind --list` uses it, with
// no lock; a checkpoint the records do not reach (a record lost in a crash,
// a store written by an older ply) is compared whole.
//
// # Crash safety and concurrency
//
// Contents are written to a temporary name and renamed, and synced before
// a manifest names them; manifests are synced before their rename (see
// durable.go). A pack is written whole under a temporary name, synced,
// renamed and its directory synced before the manifest that names its
// contents: a crash leaves either no pack (and the temporary file, which
// opening the store removes) or a whole one. Packs are never changed;
// Prune removes those no kept checkpoint uses and rewrites, into a new
// pack synced before the old is removed, those it uses less than half
// of (packprune.go). A lookup that decides whether a content must be
// stored lists the packs again once each time the lock is taken, so that
// a pack another process pruned is never relied on; a read that misses
// lists them again before it says missing.
//
// A checkpoint in which nothing changed costs no sync and writes nothing:
// it returns the previous checkpoint's id, whose manifest and contents
// were made durable before that id was first returned, so the invariant
// "contents reach the disk before a checkpoint names them" holds with
// nothing new to sync. With a change tracker this is microseconds, which is
// why a session's checkpoint of an unchanged tree adds nothing to a prompt.
// A checkpoint under a reserved id (above) writes and syncs its small
// manifest like any other, off the prompt's path; the transcript may name
// that id before it is stored, which is safe because nothing ply runs
// writes to the workspace until it is, except the files saved ahead of
// it, whose state before is durable first: a crash in between leaves a
// transcript naming a checkpoint that was never stored (a rewind says so,
// or restores what was saved ahead), and a workspace ply had not changed
// otherwise.
//
// A content found with the wrong size is written again. A
// restore first records the current state (the undo checkpoint), checks
// the size and hash of every content it will write (an *ObjectError, and
// nothing changed, when one is missing or damaged), then writes a journal
// naming the target and the undo checkpoint, then applies the changes,
// without heeding its context any more: once begun it is finished. Each
// change is idempotent. After a crash the journal stays (Pending); the
// next restore, to any target, starts from the half-restored tree, and
// its undo checkpoint is the journal's when every file now is as that
// restore's target or undo checkpoint holds it, or else the tree as it
// is, so that work done on the half-restored tree since is never lost.
// A restore writes beneath each root through directory descriptors that
// follow no symbolic link, so a directory swapped for a link cannot send a
// write elsewhere. Checkpoint, Restore and Prune hold an flock on the
// store's lock file, so ply processes sharing a store take turns.
package checkpoint
