package sandbox

import (
	"fmt"

	"golang.org/x/net/bpf"
)

// label names an instruction of a program being assembled; next is the
// instruction after a jump.
type label int

// asm lays out a classic BPF program whose jumps name labels, and turns
// the labels into the forward skips BPF has.
type asm struct {
	prog   []bpf.Instruction
	at     map[label]int
	jumps  []jump
	failed error
}

// jump is a conditional jump at prog[i] still to be resolved.
type jump struct {
	i    int
	cond bpf.JumpTest
	val  uint32
	t, f label
}

func (a *asm) op(i bpf.Instruction) { a.prog = append(a.prog, i) }
func (a *asm) ret(v uint32)         { a.op(bpf.RetConstant{Val: v}) }

func (a *asm) mark(l label) {
	if a.at == nil {
		a.at = map[label]int{}
	}
	if _, dup := a.at[l]; dup && a.failed == nil {
		a.failed = fmt.Errorf("label %d placed twice", l)
	}
	a.at[l] = len(a.prog)
}

func (a *asm) cjump(cond bpf.JumpTest, val uint32, t, f label) {
	a.jumps = append(a.jumps, jump{i: len(a.prog), cond: cond, val: val, t: t, f: f})
	a.op(nil) // resolved by assemble
}

func (a *asm) jeq(val uint32, t, f label)  { a.cjump(bpf.JumpEqual, val, t, f) }
func (a *asm) jge(val uint32, t, f label)  { a.cjump(bpf.JumpGreaterOrEqual, val, t, f) }
func (a *asm) jset(val uint32, t, f label) { a.cjump(bpf.JumpBitsSet, val, t, f) }

// assemble resolves the jumps. Every target must lie ahead, within the
// 255 instructions a conditional jump can skip.
func (a *asm) assemble() ([]bpf.Instruction, error) {
	if a.failed != nil {
		return nil, a.failed
	}
	for _, j := range a.jumps {
		t, err := a.skip(j.i, j.t)
		if err != nil {
			return nil, err
		}
		f, err := a.skip(j.i, j.f)
		if err != nil {
			return nil, err
		}
		a.prog[j.i] = bpf.JumpIf{Cond: j.cond, Val: j.val, SkipTrue: t, SkipFalse: f}
	}
	return a.prog, nil
}

func (a *asm) skip(from int, to label) (uint8, error) {
	if to == next {
		return 0, nil
	}
	at, ok := a.at[to]
	if !ok {
		return 0, fmt.Errorf("jump at %d to label %d, which is not placed", from, to)
	}
	d := at - from - 1
	if d < 0 || d > 255 {
		return 0, fmt.Errorf("jump at %d to %d: out of a conditional jump's reach", from, at)
	}
	return uint8(d), nil
}
