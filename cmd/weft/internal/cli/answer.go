package cli

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"sync"

	"github.com/spf13/cobra"

	"github.com/weftmcp/weft/client"
	"github.com/weftmcp/weft/cmd/weft/internal/console"
	"github.com/weftmcp/weft/mcp"
)

// answerFlags say how the server's questions (elicitation) and sampling
// requests are answered.
type answerFlags struct {
	answers       []string
	sampleCommand string
}

func (a *answerFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&a.answers, "answer", nil,
		"answer the server's question with this form field, as FIELD=VALUE (VALUE as JSON when valid, else a string); repeat for more fields. "+
			"Without it, questions are asked on a terminal and declined elsewhere")
	cmd.Flags().StringVar(&a.sampleCommand, "sample-command", "",
		"answer the server's sampling requests (sampling/createMessage) with this shell command: it gets the request as JSON on stdin and prints the reply, as text or as a JSON result. "+
			"Without it, a person at a terminal types the reply; elsewhere sampling is not offered")
}

// answerer serves the server's elicitation and sampling requests for one
// command.
type answerer struct {
	e             *env
	content       mcp.JSONObject // from --answer; nil when not given
	form          *console.Form  // asks interactively; nil when no one can answer
	sampleCommand string         // from --sample-command

	mu  sync.Mutex
	bar *console.Bar // hidden while asking
}

// answerer returns how this command answers questions: with the --answer
// fields, interactively when a person is at a terminal, else by declining.
func (a *answerFlags) answerer(e *env, human bool) (*answerer, error) {
	r := &answerer{e: e, sampleCommand: a.sampleCommand}
	if human && e.interactive {
		r.form = console.NewForm(e.stdin, e.stderr)
	}
	if len(a.answers) == 0 {
		return r, nil
	}
	kvs, err := parseArguments(a.answers)
	if err != nil {
		return nil, err
	}
	r.content = mcp.JSONObject{}
	for _, kv := range kvs {
		r.content[kv.key] = stdjson.RawMessage(jsonValue(kv.value))
	}
	return r, nil
}

// showOver has the answerer hide bar while it asks a question.
func (r *answerer) showOver(bar *console.Bar) {
	r.mu.Lock()
	r.bar = bar
	r.mu.Unlock()
}

// options are the client options that route questions to r, and sampling
// requests when someone (a person or --sample-command) can answer them.
func (r *answerer) options() client.Options {
	o := client.Options{ElicitForm: r.elicit, ElicitURL: r.elicit}
	if r.form != nil || r.sampleCommand != "" {
		o.CreateMessage = r.sample
	}
	return o
}

// elicit answers one elicitation request.
func (r *answerer) elicit(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	switch {
	case r.content != nil && p.EffectiveMode() == mcp.ElicitModeForm:
		return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: r.content}, nil
	case r.form != nil:
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.bar != nil {
			defer r.bar.Hold()()
		}
		return r.form.Ask(p)
	}
	fmt.Fprintf(r.e.stderr, "weft: the server asked %q; declined, as no one can answer here (give --answer FIELD=VALUE, or run on a terminal)\n", p.Message)
	return &mcp.ElicitResult{Action: mcp.ElicitDecline}, nil
}
