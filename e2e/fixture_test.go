package e2e

import (
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/weftmcp/weft/jsonrpc"
	"github.com/weftmcp/weft/mcp"
	"github.com/weftmcp/weft/server"
	"github.com/weftmcp/weft/tasks"
)

// fixtureWait bounds how long a fixture tool waits for something the test
// does; it is far above any real wait, so it only matters when a test fails.
const fixtureWait = 20 * time.Second

// fixturePageSize is the server's page size, small so lists span pages.
const fixturePageSize = 2

// fixture is the server every end-to-end test talks to, over a pipe or as a
// stdio subprocess. What the tests need to observe inside it is reported by
// its own tools, so the same assertions hold over both transports.
type fixture struct {
	srv *server.Server
	rt  *tasks.Runtime // runs the task tools; close it when done

	mu     sync.Mutex
	events map[string]chan struct{} // named one-shot events, made on first use
	late   map[string]chan error    // a tag's late progress attempt, once made
}

// event returns the channel of the named event, closed when it happens.
func (f *fixture) event(name string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch, ok := f.events[name]
	if !ok {
		ch = make(chan struct{})
		f.events[name] = ch
	}
	return ch
}

// happen marks the named event as happened (once).
func (f *fixture) happen(name string) {
	ch := f.event(name)
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// waitEvent waits for the named event, up to fixtureWait.
func (f *fixture) waitEvent(ctx context.Context, name string) bool {
	select {
	case <-f.event(name):
		return true
	case <-ctx.Done():
		return false
	case <-time.After(fixtureWait):
		return false
	}
}

// lateResult returns the channel that receives the outcome of tag's late
// progress attempt.
func (f *fixture) lateResult(tag string) chan error {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch, ok := f.late[tag]
	if !ok {
		ch = make(chan error, 1)
		f.late[tag] = ch
	}
	return ch
}

// The fixture tools' arguments and results.
type (
	addIn struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	addOut struct {
		Sum int `json:"sum"`
	}
	tagIn struct {
		Tag string `json:"tag"`
	}
	progressIn struct {
		Tag   string `json:"tag,omitempty"` // set: try once more after the response
		Steps int    `json:"steps"`
	}
	askIn struct {
		// Kinds lists what to ask, all at once: "elicit", "url", "sample", "roots".
		Kinds []string `json:"kinds"`
	}
	uriIn struct {
		URI string `json:"uri"`
	}
	textOut struct {
		Text string `json:"text"`
	}
)

// strictSchema is the input schema of the "strict" tool.
const strictSchema = `{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"],"additionalProperties":false}`

// newFixture builds the fixture server.
func newFixture() *fixture {
	f := &fixture{events: make(map[string]chan struct{}), late: make(map[string]chan error)}
	rt, err := tasks.New(tasks.NewMemoryStore(), tasks.NewMemoryBus(),
		tasks.WithPollInterval(fixturePollInterval), tasks.WithMinPollInterval(fixturePollInterval),
		tasks.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err) // the options are constants
	}
	f.rt = rt
	s := server.New(mcp.Implementation{Name: "weft-e2e", Title: "weft end-to-end fixture", Version: "1.0.0"}, &server.Options{
		Instructions: "Use the tools to exercise the protocol.",
		PageSize:     fixturePageSize,
		Tasks:        rt,
	})
	f.srv = s

	server.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds a and b."}, func(_ context.Context, _ *server.Request, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	})
	s.AddRawTool(&mcp.Tool{Name: "echo", Description: "Returns its arguments as text."}, func(_ context.Context, _ *server.Request, args stdjson.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: string(args)}}}, nil
	})
	server.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails."}, func(context.Context, *server.Request, struct{}) (addOut, error) {
		return addOut{}, errors.New("the tool failed on purpose")
	})
	s.AddRawTool(&mcp.Tool{Name: "strict", InputSchema: stdjson.RawMessage(strictSchema)}, func(_ context.Context, _ *server.Request, args stdjson.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "accepted " + string(args)}}}, nil
	})
	s.AddRawTool(&mcp.Tool{Name: "panic"}, func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
		panic("the panic tool panics on purpose")
	})

	// progress reports steps, then leaves a goroutine that tries once more
	// after the response, when late_progress releases it.
	server.AddTool(s, &mcp.Tool{Name: "progress"}, func(ctx context.Context, r *server.Request, in progressIn) (textOut, error) {
		for i := 1; i <= in.Steps; i++ {
			if err := r.Progress(ctx, float64(i), float64(in.Steps), fmt.Sprintf("step %d of %d", i, in.Steps)); err != nil {
				return textOut{}, err
			}
		}
		if in.Tag != "" {
			release := f.event("late-progress-" + in.Tag)
			go func() {
				<-release
				f.lateResult(in.Tag) <- r.Progress(context.Background(), float64(in.Steps+1), float64(in.Steps), "too late")
			}()
		}
		return textOut{Text: "done"}, nil
	})
	server.AddTool(s, &mcp.Tool{Name: "late_progress", Description: "Makes the progress tool's late attempt for tag and reports its error."},
		func(ctx context.Context, _ *server.Request, in tagIn) (textOut, error) {
			f.happen("late-progress-" + in.Tag)
			select {
			case err := <-f.lateResult(in.Tag):
				return textOut{Text: fmt.Sprint(err)}, nil
			case <-time.After(fixtureWait):
				return textOut{}, fmt.Errorf("no progress call with tag %q is waiting", in.Tag)
			}
		})

	// block runs until its context is cancelled; was_cancelled reports it.
	server.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *server.Request, in tagIn) (textOut, error) {
		f.happen("started-" + in.Tag)
		select {
		case <-ctx.Done():
			f.happen("cancelled-" + in.Tag)
			return textOut{}, ctx.Err()
		case <-time.After(fixtureWait):
			return textOut{Text: "never cancelled"}, nil
		}
	})
	server.AddTool(s, &mcp.Tool{Name: "was_cancelled"}, func(ctx context.Context, _ *server.Request, in tagIn) (textOut, error) {
		return textOut{Text: fmt.Sprint(f.waitEvent(ctx, "cancelled-"+in.Tag))}, nil
	})
	server.AddTool(s, &mcp.Tool{Name: "was_started"}, func(ctx context.Context, _ *server.Request, in tagIn) (textOut, error) {
		return textOut{Text: fmt.Sprint(f.waitEvent(ctx, "started-"+in.Tag))}, nil
	})

	// log sends one message at every level; the client's level filters them.
	server.AddTool(s, &mcp.Tool{Name: "log"}, func(ctx context.Context, r *server.Request, _ struct{}) (textOut, error) {
		for _, l := range []mcp.LoggingLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelNotice, mcp.LevelWarning,
			mcp.LevelError, mcp.LevelCritical, mcp.LevelAlert, mcp.LevelEmergency} {
			if err := r.Log(ctx, l, "fixture", map[string]string{"level": string(l)}); err != nil {
				return textOut{}, err
			}
		}
		return textOut{Text: "logged"}, nil
	})

	// ask asks the client for everything in kinds at once; ask_twice asks
	// for a form, then (in a later round) for a sample quoting the answer.
	server.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, r *server.Request, in askIn) (textOut, error) {
		text, err := askAll(ctx, r, in.Kinds)
		return textOut{Text: text}, err
	})
	server.AddTool(s, &mcp.Tool{Name: "ask_twice"}, func(ctx context.Context, r *server.Request, _ struct{}) (textOut, error) {
		name, err := r.Elicit(ctx, nameForm())
		if err != nil {
			return textOut{}, err
		}
		reply, err := r.Sample(ctx, samplePrompt("greet "+string(name.Content["name"])))
		if err != nil {
			return textOut{}, err
		}
		return textOut{Text: string(name.Content["name"]) + " / " + sampledText(reply)}, nil
	})
	server.AddTool(s, &mcp.Tool{Name: "needs_sampling"}, func(context.Context, *server.Request, struct{}) (textOut, error) {
		return textOut{Text: "sampling declared"}, nil
	}, server.RequireClientCapabilities(mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}))

	// Tools that change what the server offers or notify about it.
	server.AddTool(s, &mcp.Tool{Name: "add_tool"}, func(context.Context, *server.Request, struct{}) (textOut, error) {
		s.AddRawTool(&mcp.Tool{Name: "extra"}, func(context.Context, *server.Request, stdjson.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: mcp.Contents{&mcp.TextContent{Text: "extra"}}}, nil
		})
		return textOut{Text: "added"}, nil
	})
	server.AddTool(s, &mcp.Tool{Name: "add_prompt"}, func(context.Context, *server.Request, struct{}) (textOut, error) {
		s.AddPrompt(&mcp.Prompt{Name: "extra"}, func(context.Context, *server.Request, map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "extra"}}}}, nil
		})
		return textOut{Text: "added"}, nil
	})
	server.AddTool(s, &mcp.Tool{Name: "add_resource"}, func(context.Context, *server.Request, struct{}) (textOut, error) {
		s.AddResource(&mcp.Resource{URI: "res://extra", Name: "extra"}, textResource("extra"))
		return textOut{Text: "added"}, nil
	})
	server.AddTool(s, &mcp.Tool{Name: "touch"}, func(ctx context.Context, _ *server.Request, in uriIn) (textOut, error) {
		return textOut{Text: "touched"}, s.ResourceUpdated(ctx, in.URI)
	})

	// Resources: text, blob, a template, and one that asks for confirmation.
	s.AddResource(&mcp.Resource{URI: "res://text", Name: "text", MIMEType: "text/plain"}, textResource("hello"))
	s.AddResource(&mcp.Resource{URI: "res://blob", Name: "blob", MIMEType: "application/octet-stream"},
		func(_ context.Context, _ *server.Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{
				&mcp.BlobResourceContents{URI: uri, MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2, 255}}}}, nil
		})
	s.AddResource(&mcp.Resource{URI: "res://secret", Name: "secret"},
		func(ctx context.Context, r *server.Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
			ok, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Reveal the secret?", RequestedSchema: &mcp.ElicitSchema{Type: "object"}})
			if err != nil {
				return nil, err
			}
			if ok.Action != mcp.ElicitAccept {
				return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, Text: "withheld"}}}, nil
			}
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, Text: "s3cr3t"}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "res://items/{id}", Name: "item"},
		func(_ context.Context, _ *server.Request, uri string, vars map[string]string) (*mcp.ReadResourceResult, error) {
			if vars["id"] == "missing" {
				return nil, fmt.Errorf("item %q: %w", vars["id"], server.ErrResourceNotFound)
			}
			return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, Text: "item " + vars["id"]}}}, nil
		})

	// Prompts: one with an argument, one that asks the user first.
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, _ *server.Request, args map[string]string) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Description: "a greeting", Messages: []mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + args["name"] + "!"}}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "confirm"}, func(ctx context.Context, r *server.Request, _ map[string]string) (*mcp.GetPromptResult, error) {
		name, err := r.Elicit(ctx, nameForm())
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: "confirmed by " + string(name.Content["name"])}}}}, nil
	})

	s.SetCompletionHandler(func(_ context.Context, _ *server.Request, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
		if p.Ref.Type != mcp.ReferencePrompt || p.Ref.Name != "greet" || p.Argument.Name != "name" {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "nothing to complete for %s %s", p.Ref.Name, p.Argument.Name)
		}
		var values []string
		for _, n := range []string{"alice", "alan", "bob"} {
			if strings.HasPrefix(n, p.Argument.Value) {
				values = append(values, n)
			}
		}
		total := int64(len(values))
		return &mcp.CompleteResult{Completion: mcp.Completion{Values: values, Total: &total}}, nil
	})
	f.addTaskTools()
	return f
}

// textResource serves a text resource.
func textResource(text string) server.ResourceHandler {
	return func(_ context.Context, _ *server.Request, uri string, _ map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: mcp.ResourceContentsList{&mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
	}
}

// nameForm asks for a name.
func nameForm() *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: &mcp.ElicitSchema{
		Type:       "object",
		Properties: mcp.ElicitProperties{{Name: "name", Schema: mcp.PrimitiveSchema{Type: "string"}}},
		Required:   []string{"name"},
	}}
}

// samplePrompt asks the client's model to answer text.
func samplePrompt(text string) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{MaxTokens: 50, Messages: []mcp.SamplingMessage{
		{Role: "user", Content: mcp.SamplingContents{&mcp.TextContent{Text: text}}}}}
}

// sampledText returns the text of a sampled message.
func sampledText(r *mcp.CreateMessageResult) string {
	if len(r.Content) == 1 {
		if t, ok := r.Content[0].(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return fmt.Sprintf("%d content blocks", len(r.Content))
}

// askAll asks for every kind at once and describes the answers.
func askAll(ctx context.Context, r *server.Request, kinds []string) (string, error) {
	qs := make([]server.Question, 0, len(kinds))
	describe := make([]func() string, 0, len(kinds))
	for _, k := range kinds {
		switch k {
		case "elicit":
			q := server.AskElicit("elicit", nameForm())
			qs = append(qs, q)
			describe = append(describe, func() string { return "elicit=" + string(q.Result.Action) + ":" + string(q.Result.Content["name"]) })
		case "url":
			q := server.AskElicit("url", &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "Sign in", URL: "https://example.com/login", ElicitationID: "e-1"})
			qs = append(qs, q)
			describe = append(describe, func() string { return "url=" + string(q.Result.Action) })
		case "sample":
			q := server.AskSample("sample", samplePrompt("What is 2+2?"))
			qs = append(qs, q)
			describe = append(describe, func() string { return "sample=" + sampledText(q.Result) })
		case "roots":
			q := server.AskRoots("roots")
			qs = append(qs, q)
			describe = append(describe, func() string {
				uris := make([]string, len(q.Result.Roots))
				for i, root := range q.Result.Roots {
					uris[i] = root.URI
				}
				return "roots=" + strings.Join(uris, ",")
			})
		}
	}
	if err := r.AskAll(ctx, qs...); err != nil {
		return "", err
	}
	out := make([]string, len(describe))
	for i, d := range describe {
		out[i] = d()
	}
	return strings.Join(out, " "), nil
}
