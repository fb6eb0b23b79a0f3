// Command transform_oracle prints what nats-server's own subject transform code
// (github.com/nats-io/nats-server/v2/server, the release pinned in the go.mod the
// build uses: go.mod for 2.15, go.<line>.mod for the older lines) does with each
// case: the verdict of a `mappings` block entry (the same checks the server makes
// before it builds the transform) and, for an accepted one, what Match gives each
// subject. tests/test_differential_bytes.py compares every path of subjxform with it.
//
// Input (stdin), one JSON case a line, subjects as the hex of their bytes (they
// need not be UTF-8):
//
//	{"src": "...", "dest": "...", "subjects": ["6b2e61", ...]}
//
// Output, one line per case: {"error": <the reason, or null>, "results": [...]}, a
// result per subject: {"subject": <hex of the transformed subject>} or {"error":
// <Match's error: "invalid subject", "no matching transforms available">}.
package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"

	"github.com/nats-io/nats-server/v2/server"
)

type inputCase struct {
	Src      string   `json:"src"`
	Dest     string   `json:"dest"`
	Subjects []string `json:"subjects"`
}

type result struct {
	Subject *string `json:"subject,omitempty"`
	Error   *string `json:"error,omitempty"`
}

type outputCase struct {
	Error   *string  `json:"error"`
	Results []result `json:"results"`
}

func run(in inputCase) (outputCase, error) {
	var out outputCase
	if err := validateMapping(in.Src, in.Dest); err != nil {
		s := err.Error()
		out.Error = &s
		return out, nil
	}
	tr, err := server.NewSubjectTransform(in.Src, in.Dest)
	if err != nil {
		s := err.Error()
		out.Error = &s
		return out, nil
	}
	for _, h := range in.Subjects {
		subject, err := hex.DecodeString(h)
		if err != nil {
			return out, fmt.Errorf("subject %q is not hex: %w", h, err)
		}
		got, err := tr.Match(string(subject))
		if err != nil {
			e := err.Error()
			out.Results = append(out.Results, result{Error: &e})
			continue
		}
		s := hex.EncodeToString([]byte(got))
		out.Results = append(out.Results, result{Subject: &s})
	}
	return out, nil
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		var c inputCase
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			fmt.Fprintln(os.Stderr, "transform_oracle: bad input line:", err)
			os.Exit(2)
		}
		o, err := run(c)
		if err != nil {
			fmt.Fprintln(os.Stderr, "transform_oracle:", err)
			os.Exit(2)
		}
		if err := enc.Encode(o); err != nil {
			fmt.Fprintln(os.Stderr, "transform_oracle:", err)
			os.Exit(2)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "transform_oracle:", err)
		os.Exit(2)
	}
}
