package mcpjson_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client/mcpjson"
	"github.com/mcpchain/mcp/mcphttp"
)

// An mcp.json as mcpchain install and the desktop clients write it:
// entries of either shape, ordered by name, members a client added
// ignored.
func ExampleParse() {
	cfg, err := mcpjson.Parse([]byte(`{
	  "mcpServers": {
	    "files": {"command": "files-server", "args": ["--root", "."], "env": {"LOG": "debug"}},
	    "docs": {"type": "http", "url": "https://docs.example.com/mcp", "alwaysAllow": ["search"]}
	  }
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range cfg.Servers {
		if s.Type == mcpjson.TypeStdio {
			fmt.Println(s.Name, s.Type, s.Command, s.Args)
		} else {
			fmt.Println(s.Name, s.Type, s.URL)
		}
	}
	_, err = mcpjson.Parse([]byte(`{"mcpServers": {"my_files": {"command": "files-server"}}}`))
	fmt.Println(err)
	// Output:
	// docs http https://docs.example.com/mcp
	// files stdio files-server [--root .]
	// mcpjson: server "my_files": the name prefixes the server's tools (name_tool), so it is ASCII letters, digits and hyphens only: rename it ('_' is not one)
}

// Two servers of one file, their tools under one namespace.
func ExampleConnect() {
	quiet := slog.New(slog.DiscardHandler)
	var stops []func()
	serve := func(name string) string {
		srv := mcp.NewServer(mcp.Options{Name: name, Version: "1.0.0", Logger: quiet})
		mcp.AddTool(srv, mcp.Tool{Name: "hello"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
			return "hello from " + name, nil
		})
		h := mcphttp.New(srv, nil)
		ts := httptest.NewServer(h)
		stops = append(stops, func() { ts.Close(); _ = h.Close() })
		return ts.URL + "/mcp"
	}
	weather, news := serve("weather"), serve("news")
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	cfg, err := mcpjson.Parse([]byte(`{"mcpServers": {
	  "weather": {"url": "` + weather + `"},
	  "news": {"url": "` + news + `"}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}

	ctx := context.Background()
	cs, err := mcpjson.Connect(ctx, cfg, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()
	tools, _ := cs.ListTools(ctx)
	for _, t := range tools {
		fmt.Println(t.Name)
	}
	res, err := cs.CallTool(ctx, "weather_hello", nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	// Output:
	// news_hello
	// weather_hello
	// hello from weather
}
