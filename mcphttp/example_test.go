package mcphttp_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/justinas/alice"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
)

type exampleArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

func exampleServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "calc", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Add two numbers"},
		func(ctx context.Context, c *mcp.Context, in exampleArgs) (string, error) {
			return fmt.Sprint(in.A + in.B), nil
		})
	return srv
}

// Mount the MCP endpoint beside an app's own routes.
func ExampleNew() {
	h := mcphttp.New(exampleServer(), nil)
	defer h.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "home") })
	mux.Handle("/api/mcp", alice.New(middleware.Recover(nil)).Then(h))
	_ = mux // http.ListenAndServe("127.0.0.1:8080", mux)
}

// Call a tool in-process, through the same handler chain as HTTP: Local
// adds the local transports' steps (recovery, a fixed caller for a server
// without authentication, middleware), and client.InProcess carries each
// message through it.
func ExampleLocal() {
	h := mcphttp.New(exampleServer(), nil)
	defer h.Close()
	local, err := mcphttp.Local(h, "ada") // tools see "ada" as Context.Session
	if err != nil {
		log.Fatal(err)
	}
	e, err := client.Connect(context.Background(), client.InProcess(local, nil), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	res, err := e.CallTool(context.Background(), "add", map[string]any{"a": 2, "b": 3}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text())
	_, err = e.CallTool(context.Background(), "nope", nil, nil)
	fmt.Println(err)
	// Output:
	// 5
	// mcp client: "calc" answered tools/call with mcp error -32602: Unknown tool: "nope"
}

// The whole main of a server: stdio by default, Streamable HTTP with
// MCP_TRANSPORT=http (on MCP_HOST and MCP_PORT, default 0.0.0.0:8000);
// SIGINT or SIGTERM stops it gracefully, a second signal at once.
func ExampleRun() {
	srv := mcp.NewServer(mcp.Options{Name: "hello", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "greet", Description: "Say hello"},
		func(ctx context.Context, c *mcp.Context, in struct {
			Name string `json:"name"`
		}) (string, error) {
			return "Hello, " + in.Name + "!", nil
		})
	if err := mcphttp.Run(context.Background(), srv, nil); err != nil {
		log.Fatal(err)
	}
}

// Serve Streamable HTTP on a chosen address; Close shuts down gracefully.
func ExampleStart() {
	inst, err := mcphttp.Start(context.Background(), exampleServer(), &mcphttp.StartOptions{
		TransportType: mcphttp.TransportHTTPStream, Host: "127.0.0.1", Port: -1})
	if err != nil {
		log.Fatal(err)
	}
	resp, err := http.Get("http://" + inst.Addr() + "/health")
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	fmt.Println(inst.Close())
	// Output:
	// 200
	// <nil>
}
