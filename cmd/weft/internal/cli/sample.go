package cli

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"

	"github.com/go-json-experiment/json"

	"github.com/weftmcp/weft/cmd/weft/internal/console"
	"github.com/weftmcp/weft/mcp"
)

// sample answers one sampling request: with --sample-command when given,
// else by asking the person at the terminal.
func (r *answerer) sample(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	if r.sampleCommand != "" {
		return runSampleCommand(ctx, r.sampleCommand, p)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bar != nil {
		defer r.bar.Hold()()
	}
	return r.form.Sample(p)
}

// runSampleCommand answers a sampling request with the shell command line
// command: it gets the request's params as JSON on stdin, and prints the
// reply on stdout, either as text (the assistant's message) or as a JSON
// sampling result (an object with role, content and model).
func runSampleCommand(ctx context.Context, command string, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	in, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encoding the sampling request for --sample-command: %w", err)
	}
	shell, flag := "sh", "-c"
	if runtime.GOOS == "windows" {
		shell, flag = "cmd", "/C"
	}
	cmd := exec.CommandContext(ctx, shell, flag, command)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("--sample-command %q failed (%v): %s", command, err, strings.TrimSpace(stderr.String()))
	}
	out := bytes.TrimSpace(stdout.Bytes())
	if bytes.HasPrefix(out, []byte("{")) {
		var res mcp.CreateMessageResult
		if err := json.Unmarshal(out, &res); err != nil {
			return nil, fmt.Errorf("--sample-command %q printed JSON that is not a sampling result (role, content, model): %v", command, err)
		}
		return &res, nil
	}
	if len(out) == 0 {
		return nil, console.RejectedSampling()
	}
	return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Content: mcp.SamplingContents{&mcp.TextContent{Text: string(out)}},
		Model: "sample-command", StopReason: "endTurn"}, nil
}
