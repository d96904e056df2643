package sdk

import "github.com/plyhq/ply/internal/inbox"

// The SDK's inbox rounds. Within a query they go as in a headless run:
// when the model stops, queued rounds (and those of work the session
// holds) are sent before the query's result. A round that arrives while
// no query runs becomes a query of its own once the SDK has sent its
// first: a system message naming the source, the round, and a result
// whose num_turns does not count it.

// nextQuery waits for the next query: the SDK's next user message or,
// when idle after a first query, the inbox's next round. It reports false
// once the SDK's input ended.
func (s *Session) nextQuery() (query, bool) {
	for {
		var ready <-chan struct{}
		if s.cfg.Inbox != nil && s.initSent {
			if r, ok := s.cfg.Inbox.Take(); ok {
				return roundQuery(r), true
			}
			ready = s.cfg.Inbox.Ready()
		}
		select {
		case q, ok := <-s.queries:
			return q, ok
		case <-ready:
		}
	}
}

// roundQuery is the query an inbox round starts: the loop announces and
// records the round and sends its text.
func roundQuery(r inbox.Round) query {
	return query{typ: r.Type, round: &r}
}
