package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weftmcp/weft/internal/testport"
)

// TestReadmeCommands runs every command shown in the READMEs' ```sh and
// ```bash blocks, in order, and compares what it prints with the ```text
// block that follows, if any: changing a command's behaviour without
// changing the docs fails here. Then it runs the commands quoted in each
// README's text that name a server and hold no placeholder (see
// inlineCommands), which must succeed. How the commands are run:
//
//   - From the repository's root, with the weft built for the test first in
//     PATH; `go run ./cmd/weft` runs that weft too. The outputs shown are a
//     terminal's (WEFT_OUTPUT=text), except weft demo's, shown without one.
//   - A block marked <!-- in your module --> on the line before its fence
//     runs in a module of one's own: a folder holding the README's server
//     snippet as main.go and a go.mod, beside weft, a link to the clone.
//     The go command works offline there (GOPROXY=off; go mod tidy -e).
//   - A block marked <!-- not run: REASON --> is not run (the test suites,
//     which include this test).
//   - Servers that need the network (npx …) are replaced by weft's example
//     server over stdio; the ports 8080 and 8081 by free ones, each README
//     its own. A command
//     ending in & is a server left running (until the test ends) once its
//     port answers. A task ID in a command is replaced by the last one the
//     commands printed.
//   - Outputs are compared line by line after normalizing what differs
//     between runs: task IDs, times, ports, temporary folders, durations,
//     and the count in repeated progress lines.
func TestReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command of the READMEs, weft demo among them")
	}
	d := newDocRunner(t)
	for _, readme := range readmes {
		d.ports = map[string]string{} // each README's servers are its own
		for _, b := range shellBlocks(t, readme) {
			if b.notRun {
				continue
			}
			var out string
			for _, c := range b.commands {
				out = d.run(t, b, c)
			}
			if b.output != nil {
				want, got := normalizeOutput(*b.output), normalizeOutput(out)
				if want != got {
					t.Errorf("%s:%d: %s printed (normalized):\n%s\nwant, as the README shows (normalized):\n%s",
						b.file, b.line, b.commands[len(b.commands)-1], got, want)
				}
			}
		}
		for _, b := range inlineCommands(t, readme) {
			d.run(t, b, b.commands[0])
		}
	}
}

// inlineRE matches a command quoted in a README's text: weft, a
// subcommand and a server to talk to (a URL, or a command after "--").
var inlineRE = regexp.MustCompile("`(weft [a-z]+ [^`]*(?:http://|-- )[^`]*)`")

// placeholderRE matches what makes a quoted command a pattern rather than
// one to run: a word in capitals (URL, ADDR), brackets, alternatives, an
// ellipsis.
var placeholderRE = regexp.MustCompile(`\b[A-Z][A-Z_]+\b|[\[\]|…]|\.\.\.`)

// inlineCommands returns the commands quoted in the text of the markdown
// file path (outside code blocks) that name a server and no placeholder:
// each must succeed as written. Servers left running (serve and proxy with
// --http) are not among them.
func inlineCommands(t *testing.T, path string) []shellBlock {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []shellBlock
	inCode := false
	for n, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, m := range inlineRE.FindAllStringSubmatch(line, -1) {
			c := m[1]
			if placeholderRE.MatchString(c) || regexp.MustCompile(`^weft (serve|proxy) .*--http`).MatchString(c) {
				continue
			}
			out = append(out, shellBlock{file: path, line: n + 1, commands: []string{c}})
		}
	}
	return out
}

// shellBlock is one ```sh or ```bash block of a README, with the output
// shown after it.
type shellBlock struct {
	file     string
	line     int
	commands []string
	output   *string // the ```text block that follows; nil when none does
	inModule bool    // <!-- in your module -->
	notRun   bool    // <!-- not run: … -->
}

// shellBlocks returns the shell blocks of the markdown file path.
func shellBlocks(t *testing.T, path string) []shellBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []shellBlock
	var lang, body, prev string
	var start int
	open, afterShell := false, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case !open && strings.HasPrefix(trimmed, "```") && trimmed != "```" && !strings.Contains(trimmed[3:], "`"):
			open, lang, body, start = true, trimmed[3:], "", n
			if lang == "sh" || lang == "bash" {
				blocks = append(blocks, shellBlock{file: path, line: n,
					inModule: prev == "<!-- in your module -->", notRun: strings.HasPrefix(prev, "<!-- not run:")})
			}
		case !open && trimmed == "```":
			t.Fatalf("%s:%d: a code block without a language; say sh, bash, go or text", path, n)
		case open && trimmed == "```":
			open = false
			switch lang {
			case "sh", "bash":
				b := &blocks[len(blocks)-1]
				for _, l := range strings.Split(body, "\n") {
					if c := shellCommand(l); c != "" {
						b.commands = append(b.commands, c)
					}
				}
			case "text":
				if afterShell {
					out := body
					blocks[len(blocks)-1].output = &out
				}
			}
			afterShell = lang == "sh" || lang == "bash"
		case open:
			body += line + "\n"
		}
		if trimmed != "" {
			prev = trimmed
		}
	}
	if open {
		t.Fatalf("%s:%d: the code block is never closed", path, start)
	}
	return blocks
}

// commentRE matches a comment at the end of a command line.
var commentRE = regexp.MustCompile(`\s+#\s.*$`)

// shellCommand is the command on one line of a shell block, "" for a
// blank or comment line.
func shellCommand(line string) string {
	line = strings.TrimSpace(commentRE.ReplaceAllString(line, ""))
	if line == "" || strings.HasPrefix(line, "#") {
		return ""
	}
	return line
}

// docRunner runs the READMEs' commands.
type docRunner struct {
	root    string // the repository
	bin     string // the folder of the weft built for the test
	module  string // the module of one's own
	env     []string
	ports   map[string]string // 8080 → a free port
	lastID  string
	servers []*exec.Cmd
	demo    *string // weft demo's output, once it has run
}

// newDocRunner builds weft and prepares the folders the commands run in.
func newDocRunner(t *testing.T) *docRunner {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	d := &docRunner{root: root, bin: filepath.Join(work, "bin"), module: filepath.Join(work, "app")}
	build := exec.Command("go", "build", "-o", filepath.Join(d.bin, "weft"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building weft: %v\n%s", err, out)
	}
	if err := os.MkdirAll(d.module, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(work, "weft")); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"main.go": serverSnippet(t), "go.mod": "module example.com/echo\n\ngo 1.25.0\n"} {
		if err := os.WriteFile(filepath.Join(d.module, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d.env = append(os.Environ(),
		"PATH="+d.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GOBIN="+filepath.Join(work, "gobin"),
		"XDG_DATA_HOME="+filepath.Join(work, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(work, "config"),
		"GOFLAGS=", "GOPROXY=off", "GOSUMDB=off",
	)
	t.Cleanup(d.stop)
	return d
}

// taskIDRE matches a task ID as weft's servers make them.
var taskIDRE = regexp.MustCompile(`\b[A-Z2-7]{26}\b`)

// networkServerRE matches the npm servers the READMEs use as examples.
var networkServerRE = regexp.MustCompile(`npx (-y )?[@\w/.-]+`)

// run runs one command of block b and returns its stdout.
func (d *docRunner) run(t *testing.T, b shellBlock, command string) string {
	t.Helper()
	c := strings.ReplaceAll(command, "go run ./cmd/weft", "weft")
	c = strings.ReplaceAll(c, "go mod tidy", "go mod tidy -e")
	c = networkServerRE.ReplaceAllString(c, "weft serve --stdio --store memory")
	for _, p := range []string{"8080", "8081"} {
		if strings.Contains(c, "127.0.0.1:"+p) {
			c = strings.ReplaceAll(c, "127.0.0.1:"+p, "127.0.0.1:"+d.port(t, p))
		}
	}
	if d.lastID != "" {
		c = taskIDRE.ReplaceAllString(c, d.lastID)
	}
	sh := exec.Command("sh", "-c", strings.TrimSuffix(c, "&"))
	sh.Dir = d.root
	if b.inModule {
		sh.Dir = d.module
	}
	if c == "weft demo" && d.demo != nil {
		return *d.demo // the same story each time: told once
	}
	sh.Env = d.env
	if !strings.HasPrefix(c, "weft demo") {
		sh.Env = append(sh.Env, "WEFT_OUTPUT=text")
	}
	where := fmt.Sprintf("%s:%d: %s", b.file, b.line, c)
	if strings.HasSuffix(c, "&") {
		d.startServer(t, where, sh)
		return ""
	}
	var stdout, stderr bytes.Buffer
	sh.Stdout, sh.Stderr = &stdout, &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	done := make(chan error, 1)
	if err := sh.Start(); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	go func() { done <- sh.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("%s: %v\nstdout:\n%s\nstderr:\n%s", where, err, stdout.String(), stderr.String())
		}
	case <-ctx.Done():
		sh.Process.Kill()
		<-done
		t.Fatalf("%s: still running after 3 minutes\nstdout:\n%s\nstderr:\n%s", where, stdout.String(), stderr.String())
	}
	out := stdout.String()
	if c == "weft demo" {
		d.demo = &out
		return out
	}
	if ids := taskIDRE.FindAllString(out, -1); len(ids) > 0 {
		d.lastID = ids[len(ids)-1]
	}
	return out
}

// port returns the free port that stands for the README's port p.
func (d *docRunner) port(t *testing.T, p string) string {
	if got, ok := d.ports[p]; ok {
		return got
	}
	free, err := testport.Free()
	if err != nil {
		t.Fatal(err)
	}
	d.ports[p] = free
	return free
}

// serverReadyTimeout bounds how long a README's server has to listen.
const serverReadyTimeout = 60 * time.Second

// startServer starts a server command and waits until the port of its
// --http address answers.
func (d *docRunner) startServer(t *testing.T, where string, sh *exec.Cmd) {
	t.Helper()
	addr := regexp.MustCompile(`--http (127\.0\.0\.1:\d+)`).FindStringSubmatch(strings.Join(sh.Args, " "))
	if addr == nil {
		t.Fatalf("%s: a command left running must serve --http on 127.0.0.1", where)
	}
	var stderr bytes.Buffer
	sh.Stderr = &stderr
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sh.Start(); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	d.servers = append(d.servers, sh)
	deadline := time.Now().Add(serverReadyTimeout)
	for {
		if c, err := net.DialTimeout("tcp", addr[1], time.Second); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: nothing listened on %s within %v; stderr:\n%s", where, addr[1], serverReadyTimeout, stderr.String())
		}
		time.Sleep(50 * time.Millisecond) // polling for the server to listen
	}
}

// stop interrupts the servers the commands left running, as Ctrl-C would.
func (d *docRunner) stop() {
	for _, s := range d.servers {
		syscall.Kill(-s.Process.Pid, syscall.SIGINT)
		if err := s.Wait(); err != nil && !errors.As(err, new(*exec.ExitError)) {
			fmt.Fprintln(os.Stderr, "stopping a README server:", err)
		}
	}
}

// outputNormalizers replace what differs between runs of the same command.
var outputNormalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	{taskIDRE, "TASK_ID"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`), "TIME"},
	{regexp.MustCompile(`127\.0\.0\.1:\d+`), "127.0.0.1:PORT"},
	{regexp.MustCompile(`\S*/weft-demo-\d+/`), "TMP/"},
	{regexp.MustCompile(`\bin \d+(\.\d+)?m?s\b`), "in Ns"},
	{regexp.MustCompile(`slept \d+ of`), "slept N of"},
	{regexp.MustCompile(`[ \t]+\n`), "\n"},
}

// workingLineRE matches a line in which a followed task reports that it is
// working, with or without a progress message.
var workingLineRE = regexp.MustCompile(`^\s+\S+: working(: .*)?$`)

// normalizeOutput normalizes an output for comparison, and folds repeated
// lines (progress reported more or less often) into one. It drops the
// lines of a followed task that is working: a follower polls, so on a busy
// machine it may see a short state (working before input_required, one
// second's progress) or miss it; the states that last are compared.
func normalizeOutput(s string) string {
	for _, n := range outputNormalizers {
		s = n.re.ReplaceAllString(s, n.with)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if workingLineRE.MatchString(l) || len(out) > 0 && out[len(out)-1] == l {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
