// Command pcgroups_oracle prints what the partitioned consumer groups library
// (github.com/synadia-io/orbit.go/pcgroups, pinned in go.mod) and nats-server's
// subject transform do with each case: the library's verdict on the config, the
// partition filters GeneratePartitionFilters gives every member, and the
// partition and member of each subject. tests/pcgroups_goldens.py turns its
// output into tests/golden/pcgroups/*.jsonl.
//
// Input (stdin), one JSON case a line:
//
//	{"kind": "elastic"|"static", "config": <the KV value, any JSON>, "subjects": [...], "probe_members": [...]}
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	_ "unsafe" // go:linkname: the library's validators are unexported

	"github.com/nats-io/nats-server/v2/server"
	"github.com/synadia-io/orbit.go/pcgroups"
)

//go:linkname validateConfig github.com/synadia-io/orbit.go/pcgroups.validateConfig
func validateConfig(config pcgroups.ElasticConsumerGroupConfig) error

//go:linkname validateStaticConfig github.com/synadia-io/orbit.go/pcgroups.validateStaticConfig
func validateStaticConfig(config pcgroups.StaticConsumerGroupConfig) error

//go:linkname subjectIsSubsetMatch github.com/nats-io/nats-server/v2/server.subjectIsSubsetMatch
func subjectIsSubsetMatch(subject, test string) bool

//go:linkname getPartitioningTransformDest github.com/synadia-io/orbit.go/pcgroups.getPartitioningTransformDest
func getPartitioningTransformDest(partitioningFilter pcgroups.PartitioningFilter, maxMembers uint) string

type inputCase struct {
	Kind         string          `json:"kind"`
	Config       json.RawMessage `json:"config"`
	Subjects     []string        `json:"subjects"`
	ProbeMembers []string        `json:"probe_members"`
}

type subjectResult struct {
	Subject   string  `json:"subject"`
	Partition *int    `json:"partition"`
	Member    *string `json:"member"`
}

type outputCase struct {
	Kind       string              `json:"kind"`
	Config     json.RawMessage     `json:"config"`
	Valid      bool                `json:"valid"`
	Error      *string             `json:"error"`
	Transforms []map[string]string `json:"transforms,omitempty"`
	Filters    map[string][]string `json:"filters,omitempty"`
	Subjects   []subjectResult     `json:"subjects,omitempty"`
}

// group is what both kinds share once the config is read.
type group struct {
	maxMembers     uint
	members        []string
	memberMappings []pcgroups.MemberMapping
	filters        []string // partitioning filters (elastic) or filters (static); empty means ">"
}

func (g group) filtersOf(member string) []string {
	filters := g.filters
	if len(filters) == 0 {
		filters = []string{">"}
	}
	var out []string
	for _, f := range filters {
		out = append(out, pcgroups.GeneratePartitionFilters(g.members, g.maxMembers, g.memberMappings, member, f)...)
	}
	return out
}

// memberNames: every name the config mentions, plus probes (names that get nothing).
func (g group) memberNames(probes []string) []string {
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, m := range g.members {
		add(m)
	}
	for _, mm := range g.memberMappings {
		add(mm.Member)
	}
	for _, p := range probes {
		add(p)
	}
	return names
}

// memberOf: the member whose consumer filters take the partitioned subject.
func (g group) memberOf(partitioned string, names []string) *string {
	for _, n := range names {
		for _, f := range g.filtersOf(n) {
			if server.SubjectMatchesFilter(partitioned, f) {
				n := n
				return &n
			}
		}
	}
	return nil
}

func run(in inputCase) outputCase {
	out := outputCase{Kind: in.Kind, Config: in.Config}
	fail := func(err error) outputCase {
		s := err.Error()
		out.Error = &s
		return out
	}
	var g group
	var transforms []*struct {
		src, dest string
	}
	switch in.Kind {
	case "elastic":
		var c pcgroups.ElasticConsumerGroupConfig
		if err := json.Unmarshal(in.Config, &c); err != nil {
			return fail(fmt.Errorf("invalid JSON value for the elastic consumer group's config: %w", err))
		}
		if err := validateConfig(c); err != nil {
			return fail(fmt.Errorf("invalid elastic consumer group config: %w", err))
		}
		g = group{c.MaxMembers, c.Members, c.MemberMappings, nil}
		pfs := c.PartitioningFilters
		if len(pfs) == 0 { // what CreateElastic sources when there is no partitioning filter
			pfs = []pcgroups.PartitioningFilter{{Filter: ">", PartitioningWildcards: []int{}}}
		}
		for _, pf := range pfs {
			g.filters = append(g.filters, pf.Filter)
			transforms = append(transforms, &struct{ src, dest string }{pf.Filter, getPartitioningTransformDest(pf, c.MaxMembers)})
		}
	case "static":
		var c pcgroups.StaticConsumerGroupConfig
		if err := json.Unmarshal(in.Config, &c); err != nil {
			return fail(fmt.Errorf("invalid JSON value for the static consumer group's config: %w", err))
		}
		if err := validateStaticConfig(c); err != nil {
			return fail(fmt.Errorf("invalid static consumer group config: %w", err))
		}
		if len(c.MemberMappings) == 0 { // (with mappings, a member's consumer filters are "<p>.>")
			for i, f := range c.Filters {
				// the library accepts these, nats-server refuses the members' consumers
				if !server.IsValidSubject(f) {
					return fail(fmt.Errorf("filters[%d] %q: invalid subject", i, f))
				}
				for j, o := range c.Filters {
					if i != j && subjectIsSubsetMatch(f, o) {
						return fail(fmt.Errorf("filters[%d] %q and [%d] %q: consumer subject filters cannot overlap", i, f, j, o))
					}
				}
			}
		}
		g = group{c.MaxMembers, c.Members, c.MemberMappings, c.Filters}
	default:
		return fail(fmt.Errorf("unknown kind %q", in.Kind))
	}
	// The library accepts these, nats-server refuses the sourcing stream (its order of checks).
	for _, t := range transforms {
		if !server.IsValidSubject(t.src) {
			return fail(fmt.Errorf("source filter %s: invalid subject", t.src))
		}
		if _, err := server.NewSubjectTransform(t.src, t.dest); err != nil {
			return fail(fmt.Errorf("the sourcing transform %s -> %s: %w", t.src, t.dest, err))
		}
	}
	for i, t := range transforms {
		for j, o := range transforms {
			if i != j && subjectIsSubsetMatch(t.src, o.src) {
				return fail(fmt.Errorf("%s and %s: source filters can not overlap", t.src, o.src))
			}
		}
	}
	out.Valid = true
	names := g.memberNames(in.ProbeMembers)
	out.Filters = map[string][]string{}
	for _, n := range names {
		out.Filters[n] = g.filtersOf(n)
		if out.Filters[n] == nil {
			out.Filters[n] = []string{}
		}
	}
	// A static group's partitions: every filter a sole member of the group would have.
	everyPartition := group{g.maxMembers, []string{"all"}, nil, g.filters}
	if len(g.memberMappings) != 0 {
		everyPartition = group{g.maxMembers, nil, []pcgroups.MemberMapping{{Member: "all", Partitions: allPartitions(g.maxMembers)}}, g.filters}
	}
	for _, t := range transforms {
		out.Transforms = append(out.Transforms, map[string]string{"src": t.src, "dest": t.dest})
	}
	for _, subject := range in.Subjects {
		r := subjectResult{Subject: subject}
		partitioned := ""
		if in.Kind == "elastic" {
			// The sourcing stream renames a message with the first transform whose source matches it.
			for _, t := range transforms {
				tr, _ := server.NewSubjectTransform(t.src, t.dest)
				if s, err := tr.Match(subject); err == nil {
					partitioned = s
					break
				}
			}
		} else if everyPartition.memberOf(subject, []string{"all"}) != nil {
			partitioned = subject
		}
		if partitioned != "" {
			p, err := strconv.Atoi(strings.SplitN(partitioned, ".", 2)[0])
			if err != nil {
				return fail(fmt.Errorf("partition token of %q: %w", partitioned, err))
			}
			r.Partition = &p
			r.Member = g.memberOf(partitioned, names)
		}
		out.Subjects = append(out.Subjects, r)
	}
	return out
}

func allPartitions(n uint) []int {
	ps := make([]int, n)
	for i := range ps {
		ps[i] = i
	}
	return ps
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	for in.Scan() {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		var c inputCase
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			fmt.Fprintf(os.Stderr, "bad case %s: %v\n", line, err)
			os.Exit(2)
		}
		if err := enc.Encode(run(c)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
