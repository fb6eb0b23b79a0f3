// Command conf_oracle prints what nats-server's config package (github.com/nats-io/nats-server/v2/conf,
// pinned in go.mod) makes of each document: conf.Parse's and conf.ParseWithChecks's verdict, error text
// and values with their Go types, and, for a document with files or environment variables, what
// ParseFile, ParseFileWithChecks and ParseFileWithChecksDigest (the server's way to load a file) make of
// it. tests/conf_differential.py compares the project's two config readers with it.
//
// Input (stdin), one JSON document a line:
//
//	{"id": 7, "text": "<base64 of the bytes>", "files": {"inc/a.conf": "<base64>"}, "env": {"NAME": "value"}}
//
// Output, one JSON line each: {"id", "text": {"parse", "checks"}, "file": {"parse", "checks", "digest"}}
// ("file" only with files or env), each a result {"ok", "error": hex, "value"}. A value is {"s": hex} (a
// string's bytes), {"i": "123"} (int64), {"f": "<hex of the float64's bits>"}, {"b": true}, {"t":
// "2006-01-02T15:04:05Z"} (time.Time), {"a": [...]}, {"m": [["<hex of the key>", value], ...]} sorted by
// key; a value ParseWithChecks wrapped in a token also has "l" (its line), "c" (its position on the line,
// which `nats-server -t` prints after the line), "u" (a used variable) and "src" (its file, relative to the
// document's folder). Text documents are read with no environment in an
// empty folder, so that nothing outside the document reaches them.
//
// `conf_oracle tables` prints the unicode tables the lexer uses (unicode.IsDigit's ranges and the
// white space), for the readers' copies of them. `conf_oracle fields OPTS.GO` prints the fields a
// release's server/opts.go knows in the blocks `subjxform validate` reads (the cases of each switch
// whose default is "unknown field"), for tests/server_fields.py; `conf_oracle types OPTS.GO` the Go type each
// of those fields is read as when its case starts with a bare type assertion of the value (`o.Host = mv.(string)`:
// another type panics, which the server reports as `interface conversion`).
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/nats-io/nats-server/v2/conf"
)

type document struct {
	ID    int64             `json:"id"`
	Text  string            `json:"text"`
	Files map[string]string `json:"files"`
	Env   map[string]string `json:"env"`
}

type result struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	Panic string `json:"panic,omitempty"`
	Value any    `json:"value,omitempty"`
}

type tokenLike interface {
	Value() any
	Line() int
	Position() int
	IsUsedVariable() bool
	SourceFile() string
}

// encode writes a parsed value with its Go type; folder is stripped from token source files.
func encode(v any, folder string) any {
	if tk, ok := v.(tokenLike); ok {
		out := encode(tk.Value(), folder).(map[string]any)
		out["l"] = tk.Line()
		out["c"] = tk.Position()
		out["u"] = tk.IsUsedVariable()
		src := tk.SourceFile()
		if folder != "" {
			src = strings.TrimPrefix(strings.TrimPrefix(src, folder), "/")
		}
		out["src"] = src
		return out
	}
	switch x := v.(type) {
	case string:
		return map[string]any{"s": hex.EncodeToString([]byte(x))}
	case int64:
		return map[string]any{"i": strconv.FormatInt(x, 10)}
	case float64:
		return map[string]any{"f": strconv.FormatUint(math.Float64bits(x), 16)}
	case bool:
		return map[string]any{"b": x}
	case time.Time:
		return map[string]any{"t": x.UTC().Format("2006-01-02T15:04:05Z")}
	case []any:
		items := make([]any, len(x))
		for i, it := range x {
			items[i] = encode(it, folder)
		}
		return map[string]any{"a": items}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		entries := make([]any, len(keys))
		for i, k := range keys {
			entries[i] = []any{hex.EncodeToString([]byte(k)), encode(x[k], folder)}
		}
		return map[string]any{"m": entries}
	}
	return map[string]any{"unknown": fmt.Sprintf("%T", v)}
}

func run(parse func() (map[string]any, error), folder string) (r result) {
	defer func() {
		if p := recover(); p != nil {
			r = result{Panic: fmt.Sprint(p)}
		}
	}()
	m, err := parse()
	if err != nil {
		text := err.Error()
		if folder != "" { // the document's folder is a temporary one: its files are named relative to it
			text = strings.ReplaceAll(strings.ReplaceAll(text, folder+"/", ""), folder, ".")
		}
		return result{Error: hex.EncodeToString([]byte(text))}
	}
	return result{OK: true, Value: encode(m, folder)}
}

func decode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		fail(err)
	}
	return b
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "conf_oracle:", err)
	os.Exit(2)
}

// withFiles writes the document's files and main.conf under a fresh folder and sets its environment.
func withFiles(doc document, text []byte, read func(path, folder string) map[string]result) map[string]result {
	folder, err := os.MkdirTemp("", "conf-oracle-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(folder)
	for name, content := range doc.Files {
		path := filepath.Join(folder, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fail(err)
		}
		if err := os.WriteFile(path, decode(content), 0o644); err != nil {
			fail(err)
		}
	}
	main := filepath.Join(folder, "main.conf")
	if err := os.WriteFile(main, text, 0o644); err != nil {
		fail(err)
	}
	for k, v := range doc.Env {
		os.Setenv(k, v)
	}
	defer func() {
		for k := range doc.Env {
			os.Unsetenv(k)
		}
	}()
	return read(main, folder)
}

func tables() {
	var digits [][2]rune
	for _, r := range unicode.Digit.R16 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			digits = appendRange(digits, c)
		}
	}
	for _, r := range unicode.Digit.R32 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			digits = appendRange(digits, c)
		}
	}
	var spaces []rune
	for c := rune(0); c <= unicode.MaxRune; c++ {
		if unicode.IsSpace(c) {
			spaces = append(spaces, c)
		}
	}
	json.NewEncoder(os.Stdout).Encode(map[string]any{"digits": digits, "spaces": spaces, "unicode": unicode.Version})
}

func appendRange(ranges [][2]rune, c rune) [][2]rune {
	if n := len(ranges); n > 0 && ranges[n-1][1] == c-1 {
		ranges[n-1][1] = c
		return ranges
	}
	return append(ranges, [2]rune{c, c})
}

// The functions of server/opts.go whose "unknown field" switch names a block's fields.
var fieldBlocks = map[string]string{
	"processConfigFileLine":      "top",
	"parseAccounts":              "account",
	"parseExportStreamOrService": "export",
	"parseImportStreamOrService": "import",
	"parseAccount":               "import_account",
	"parseAuthorization":         "authorization",
	"parseCluster":               "cluster",
	"parseGateway":               "gateway",
	"parseGateways":              "gateway_remote",
	"parseJetStream":             "jetstream",
	"parseLeafNodes":             "leafnodes",
	"parseRemoteLeafNodes":       "leafnode_remote",
	"parseWebsocket":             "websocket",
	"parseMQTT":                  "mqtt",
	"parseTLS":                   "tls",
	"parseUsers":                 "user",
	"parseUserPermissions":       "permissions",
	"parseSubjectPermission":     "subject_permission",
	"parseAllowResponses":        "allow_responses",
	"parseAuthCallout":           "auth_callout",
	"parseLeafAuthorization":     "leaf_authorization",
	"parseLeafUsers":             "leaf_user",
	"parseSimpleAuth":            "simple_authorization",
	"parseJetStreamLimits":       "jetstream_limits",
	"parseJetStreamLimitsBatch":  "jetstream_limits_batch",
	"parseJetStreamTPM":          "jetstream_tpm",
	"parseJetStreamForAccount":   "account_jetstream",
	"parseAccountLimits":         "account_limits",
}

func fields(path string) {
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		fail(err)
	}
	out := map[string][]string{}
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fieldBlocks[fn.Name.Name] == "" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			sw, ok := n.(*ast.SwitchStmt)
			if !ok || out[fieldBlocks[fn.Name.Name]] != nil || !unknownFieldDefault(sw) {
				return true
			}
			names := []string{}
			for _, c := range sw.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						names = append(names, s)
					}
				}
			}
			sort.Strings(names)
			out[fieldBlocks[fn.Name.Name]] = names
			return false
		})
	}
	json.NewEncoder(os.Stdout).Encode(out)
}

// types prints, per block, the fields whose case's first statement asserts the value's type without the comma-ok
// form (`x = mv.(string)`, `x = int(mv.(int64))`, `if v.(int64) > max`; not inside the statement's own blocks):
// block -> field -> type, Go's spelling of the type as a panic names it (`[]interface {}`); or, for a field read with
// parseDuration, "duration:NAME" (the name its messages give; empty: the key as written).
func types(path string) {
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		fail(err)
	}
	out := map[string]map[string]string{}
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fieldBlocks[fn.Name.Name] == "" {
			continue
		}
		block := fieldBlocks[fn.Name.Name]
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			sw, ok := n.(*ast.SwitchStmt)
			if !ok || out[block] != nil || !unknownFieldDefault(sw) {
				return true
			}
			found := map[string]string{}
			for _, c := range sw.Body.List {
				cc := c.(*ast.CaseClause)
				if len(cc.Body) == 0 {
					continue
				}
				first := cc.Body[0]
				// a comma-ok assertion (`v, ok := mv.(string)`, also as an if's init) checks instead of panicking
				// (not `d, err := time.ParseDuration(v.(string))`: two results, but its assertion is a bare one)
				commaOk := func(st ast.Stmt) bool {
					a, ok := st.(*ast.AssignStmt)
					if !ok || len(a.Lhs) != 2 || len(a.Rhs) != 1 {
						return false
					}
					_, isAssertion := a.Rhs[0].(*ast.TypeAssertExpr)
					return isAssertion
				}
				asserted := durationOf(first)
				if ifs, ok := first.(*ast.IfStmt); asserted == "" && ok && ifs.Init != nil && commaOk(ifs.Init) {
					// `sync: always` or a duration: the else branch's parseDuration
					if e, ok := ifs.Else.(*ast.BlockStmt); ok && len(e.List) > 0 {
						asserted = durationOf(e.List[0])
					}
				}
				if ifs, ok := first.(*ast.IfStmt); asserted == "" && (commaOk(first) || (ok && ifs.Init != nil && commaOk(ifs.Init))) {
					continue
				}
				ast.Inspect(first, func(e ast.Node) bool {
					if _, ok := e.(*ast.FuncLit); ok {
						return false
					}
					if _, ok := e.(*ast.BlockStmt); ok && e != first {
						return false // only what the statement itself runs first: its init, condition or right side
					}
					if ta, ok := e.(*ast.TypeAssertExpr); ok && ta.Type != nil && asserted == "" {
						if _, ok := ta.X.(*ast.Ident); ok {
							asserted = goTypeName(ta.Type)
						}
					}
					return asserted == ""
				})
				if asserted == "" {
					continue
				}
				for _, e := range cc.List {
					if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						s, _ := strconv.Unquote(lit.Value)
						found[s] = asserted
					}
				}
			}
			out[block] = found
			return false
		})
	}
	json.NewEncoder(os.Stdout).Encode(out)
}

// durationOf: "duration:NAME" when the statement reads the value with parseDuration("NAME", ...), "duration:" when
// it names the field as written (parseDuration(mk, ...)), else "".
func durationOf(st ast.Stmt) string {
	found := ""
	ast.Inspect(st, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && found == "" {
			if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "parseDuration" && len(call.Args) > 0 {
				found = "duration:"
				if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					name, _ := strconv.Unquote(lit.Value)
					found += name
				}
			}
		}
		if _, ok := n.(*ast.BlockStmt); ok && n != st {
			return false
		}
		return found == ""
	})
	return found
}

// goTypeName: a type expression as Go's runtime names it in a failed assertion's panic.
func goTypeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		if t.Name == "any" {
			return "interface {}"
		}
		return t.Name
	case *ast.InterfaceType:
		return "interface {}"
	case *ast.ArrayType:
		return "[]" + goTypeName(t.Elt)
	case *ast.MapType:
		return "map[" + goTypeName(t.Key) + "]" + goTypeName(t.Value)
	case *ast.SelectorExpr:
		return goTypeName(t.X) + "." + t.Sel.Name
	case *ast.StarExpr:
		return "*" + goTypeName(t.X)
	}
	return fmt.Sprintf("%T", e)
}

// unknownFieldDefault: the switch's default case reports an unknownConfigFieldErr, or a block's own "unknown field"
// words (a tls block's; "Unknown field %q parsing permissions" and the like of permissions and auth callouts).
func unknownFieldDefault(sw *ast.SwitchStmt) bool {
	for _, c := range sw.Body.List {
		if cc := c.(*ast.CaseClause); cc.List == nil {
			found := false
			ast.Inspect(cc, func(n ast.Node) bool {
				if lit, ok := n.(*ast.CompositeLit); ok {
					if id, ok := lit.Type.(*ast.Ident); ok && id.Name == "unknownConfigFieldErr" {
						found = true
					}
				}
				if lit, ok := n.(*ast.BasicLit); ok && (strings.Contains(lit.Value, "error parsing tls config, unknown field") ||
					strings.HasPrefix(lit.Value, `"Unknown field `)) {
					found = true
				}
				return !found
			})
			return found
		}
	}
	return false
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "tables" {
		tables()
		return
	}
	if len(os.Args) > 2 && os.Args[1] == "fields" {
		fields(os.Args[2])
		return
	}
	if len(os.Args) > 2 && os.Args[1] == "types" {
		types(os.Args[2])
		return
	}
	// Text documents see no environment and no files: an empty folder, an empty environment.
	os.Clearenv()
	empty, err := os.MkdirTemp("", "conf-oracle-cwd-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(empty)
	if err := os.Chdir(empty); err != nil {
		fail(err)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			break
		}
		var doc document
		if err := json.Unmarshal(line, &doc); err != nil {
			fail(err)
		}
		text := decode(doc.Text)
		answer := map[string]any{"id": doc.ID, "text": map[string]result{
			"parse":  run(func() (map[string]any, error) { return conf.Parse(string(text)) }, ""),
			"checks": run(func() (map[string]any, error) { return conf.ParseWithChecks(string(text)) }, ""),
		}}
		if len(doc.Files) > 0 || len(doc.Env) > 0 {
			answer["file"] = withFiles(doc, text, func(path, folder string) map[string]result {
				return map[string]result{
					"parse":  run(func() (map[string]any, error) { return conf.ParseFile(path) }, folder),
					"checks": run(func() (map[string]any, error) { return conf.ParseFileWithChecks(path) }, folder),
					"digest": run(func() (map[string]any, error) {
						m, _, err := conf.ParseFileWithChecksDigest(path)
						return m, err
					}, folder),
				}
			})
		}
		if err := enc.Encode(answer); err != nil {
			fail(err)
		}
		if in.Buffered() == 0 { // the writer waits for these answers before it sends more
			out.Flush()
		}
	}
}
