package oauth

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoopbackState: the loopback listener hands the
// login under way only the redirect that carries the state this login
// sent; any other request to /callback (a local process or a web page
// that found the port) gets a 400 page and the login keeps waiting.
func TestLoopbackState(t *testing.T) {
	t.Parallel()
	l, err := ListenLoopback("")
	require.NoError(t, err)
	defer l.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	get := func(q string) (int, string) {
		resp, err := hc.Get(l.RedirectURL() + "?" + q)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	opened := make(chan string, 1)
	type outcome struct {
		q   url.Values
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		q, err := l.Authorize(func(u string) error { opened <- u; return nil }, time.Minute)(
			context.Background(), "https://as.example/authorize?client_id=c&state=the-real-state")
		done <- outcome{q, err}
	}()
	<-opened

	for _, hostile := range []string{
		"code=evil&state=guess",
		"code=evil",
		"error=access_denied&state=guess",
		"code=evil&state=the-real-state-but-longer",
		"code=evil&state=",
	} {
		status, body := get(hostile)
		assert.Equal(t, http.StatusBadRequest, status, hostile)
		assert.Contains(t, body, "state", hostile)
		select {
		case o := <-done:
			t.Fatalf("the login ended on %q: %v %v", hostile, o.q, o.err)
		default: // the handler answers after handing a redirect over: none was
		}
	}

	status, _ := get("code=good&state=the-real-state")
	require.Equal(t, http.StatusOK, status)
	o := <-done
	require.NoError(t, o.err)
	assert.Equal(t, "good", o.q.Get("code"))

	status, _ = get("code=late&state=the-real-state")
	assert.Equal(t, http.StatusBadRequest, status, "one redirect per authorization")
}
