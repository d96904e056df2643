package schedule

import (
	"errors"
	"strings"
	"time"
)

// LoopCommand is the /loop command's arguments: with neither Stop nor
// Every set it lists the schedules; Stop names one to stop; Every and
// Prompt start one.
type LoopCommand struct {
	Stop   string
	Every  time.Duration
	Prompt string
}

// ParseLoop reads /loop's arguments: "", "stop ID" or "INTERVAL PROMPT".
// Every entry's /loop reads them here, so they mean the same everywhere.
func ParseLoop(args string) (LoopCommand, error) {
	first, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	rest = strings.TrimSpace(rest)
	switch {
	case first == "":
		return LoopCommand{}, nil
	case first == "stop":
		if rest == "" {
			return LoopCommand{}, errors.New("usage: /loop stop ID (/loop lists them)")
		}
		return LoopCommand{Stop: rest}, nil
	}
	every, err := ParseInterval(first)
	if err != nil {
		return LoopCommand{}, err
	}
	if rest == "" {
		return LoopCommand{}, errors.New("usage: /loop INTERVAL PROMPT")
	}
	return LoopCommand{Every: every, Prompt: rest}, nil
}
