package inbox

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/plyhq/ply/internal/client"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func round(src string) Round {
	return Round{Type: client.Notification, Source: src, Text: "from " + src}
}

func TestRoundsComeOutInOrder(t *testing.T) {
	b := New()
	b.Post(round("a"))
	b.Post(round("b"))
	if b.Len() != 2 {
		t.Fatalf("len %d", b.Len())
	}
	for _, want := range []string{"a", "b"} {
		r, ok := b.Take()
		if !ok || r.Source != want {
			t.Fatalf("took %+v %v, want %s", r, ok, want)
		}
	}
	if _, ok := b.Take(); ok {
		t.Fatal("an empty inbox gave a round")
	}
}

// Next waits for a round while work that will post one is held, and
// reports none once nothing is held and nothing waits.
func TestNextWaitsForHeldWork(t *testing.T) {
	b := New()
	if _, ok := b.Next(context.Background()); ok {
		t.Fatal("nothing held, nothing queued: Next must not wait")
	}
	done := b.Hold()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(20 * time.Millisecond)
		b.Post(round("agent"))
		done()
		done() // a second release is harmless
	}()
	r, ok := b.Next(context.Background())
	if !ok || r.Source != "agent" {
		t.Fatalf("Next gave %+v %v", r, ok)
	}
	wg.Wait()
	if _, ok := b.Next(context.Background()); ok {
		t.Fatal("released and empty: Next must not wait")
	}
	if b.Held() != 0 {
		t.Fatalf("held %d", b.Held())
	}
}

func TestNextEndsWithTheContext(t *testing.T) {
	b := New()
	release := b.Hold()
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, ok := b.Next(ctx); ok {
		t.Fatal("a round from nowhere")
	}
}

func TestClosedInboxRefusesRounds(t *testing.T) {
	b := New()
	b.Close()
	if b.Post(round("late")) {
		t.Fatal("a closed inbox took a round")
	}
	if b.Len() != 0 {
		t.Fatal("len")
	}
}

func TestReadySignalsAPost(t *testing.T) {
	b := New()
	go b.Post(round("x"))
	select {
	case <-b.Ready():
	case <-time.After(2 * time.Second):
		t.Fatal("no signal")
	}
	if r, ok := b.Take(); !ok || r.Source != "x" {
		t.Fatalf("%+v", r)
	}
}

func TestTakeTypeKeepsTheOthersInOrder(t *testing.T) {
	b := New()
	b.Post(Round{Type: client.Notification, Source: "n1"})
	b.Post(Round{Type: client.Teammate, Source: "t1"})
	b.Post(Round{Type: client.Cron, Source: "c1"})
	b.Post(Round{Type: client.Teammate, Source: "t2"})
	got := b.TakeType(client.Teammate)
	if len(got) != 2 || got[0].Source != "t1" || got[1].Source != "t2" {
		t.Fatalf("took %+v", got)
	}
	for _, want := range []string{"n1", "c1"} {
		if r, ok := b.Take(); !ok || r.Source != want {
			t.Fatalf("left %+v, want %s", r, want)
		}
	}
	if b.TakeType(client.Teammate) != nil {
		t.Fatal("took from an empty inbox")
	}
}

// BenchmarkPostToNext measures how long a round posted by another
// goroutine takes to reach a loop waiting in Next.
func BenchmarkPostToNext(b *testing.B) {
	in := New()
	release := in.Hold()
	defer release()
	for i := 0; i < b.N; i++ {
		go in.Post(Round{Type: client.Notification})
		if _, ok := in.Next(context.Background()); !ok {
			b.Fatal("no round")
		}
	}
}
