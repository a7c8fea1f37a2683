package mcphttp

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type reqCtxKey struct{}

var errParentCause = errors.New("the parent's cause")

// closed reports whether ch is closed, waiting a little for a close that
// another goroutine makes (package context's AfterFunc).
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-time.After(2 * time.Second):
		return false
	}
}

// TestRequestContext checks that a request's context answers as a
// context.WithCancelCause child of the HTTP request's would, whatever
// happens first: the client's cancel, the parent's cancel, the request's
// end; asked before (Done, a derived context) or after.
func TestRequestContext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// derive makes contexts from the request's before anything
		// happens (it forces the real child).
		derive bool
		// happen is what happens to the context; nil for nothing.
		happen    func(rc *requestContext, cancelParent context.CancelCauseFunc)
		wantErr   error
		wantCause error
	}{
		{name: "nothing happened", wantErr: nil, wantCause: nil},
		{name: "nothing happened, derived", derive: true, wantErr: nil, wantCause: nil},
		{name: "client cancelled", happen: func(rc *requestContext, _ context.CancelCauseFunc) { rc.cancel(errCancelled) },
			wantErr: context.Canceled, wantCause: errCancelled},
		{name: "client cancelled, derived", derive: true, happen: func(rc *requestContext, _ context.CancelCauseFunc) { rc.cancel(errCancelled) },
			wantErr: context.Canceled, wantCause: errCancelled},
		{name: "parent cancelled", happen: func(_ *requestContext, cp context.CancelCauseFunc) { cp(errParentCause) },
			wantErr: context.Canceled, wantCause: errParentCause},
		{name: "parent cancelled, derived", derive: true, happen: func(_ *requestContext, cp context.CancelCauseFunc) { cp(errParentCause) },
			wantErr: context.Canceled, wantCause: errParentCause},
		{name: "request ended", happen: func(rc *requestContext, _ context.CancelCauseFunc) { rc.end() },
			wantErr: context.Canceled, wantCause: context.Canceled},
		{name: "request ended, derived", derive: true, happen: func(rc *requestContext, _ context.CancelCauseFunc) { rc.end() },
			wantErr: context.Canceled, wantCause: context.Canceled},
		{name: "parent cancelled, then the request ended", happen: func(rc *requestContext, cp context.CancelCauseFunc) { cp(errParentCause); rc.end() },
			wantErr: context.Canceled, wantCause: errParentCause},
		{name: "request ended, then the client cancelled", happen: func(rc *requestContext, _ context.CancelCauseFunc) { rc.end(); rc.cancel(errCancelled) },
			wantErr: context.Canceled, wantCause: context.Canceled},
		{name: "client cancelled, then the request ended", happen: func(rc *requestContext, _ context.CancelCauseFunc) { rc.cancel(errCancelled); rc.end() },
			wantErr: context.Canceled, wantCause: errCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			parent, cancelParent := context.WithCancelCause(context.WithValue(context.Background(), reqCtxKey{}, "v"))
			defer cancelParent(nil)
			rc := &requestContext{}
			rc.init(parent)
			var ctx context.Context = rc

			assert.Equal(t, "v", ctx.Value(reqCtxKey{}), "the parent's values")
			assert.NoError(t, ctx.Err())
			var derived context.Context
			var afterRan chan struct{}
			if tt.derive {
				var cancel context.CancelFunc
				derived, cancel = context.WithCancel(ctx)
				defer cancel()
				afterRan = make(chan struct{})
				context.AfterFunc(ctx, func() { close(afterRan) })
			} else {
				assert.Nil(t, rc.child.Load(), "no child is made before it is needed")
			}
			if tt.happen != nil {
				tt.happen(rc, cancelParent)
			}
			if tt.wantErr == nil {
				assert.NoError(t, ctx.Err())
				assert.NoError(t, context.Cause(ctx))
				select {
				case <-ctx.Done():
					t.Fatal("Done is closed though nothing cancelled the context")
				default:
				}
				return
			}
			assert.ErrorIs(t, ctx.Err(), tt.wantErr)
			assert.Equal(t, tt.wantCause, context.Cause(ctx), "context.Cause")
			assert.True(t, closed(ctx.Done()), "Done is closed")
			assert.Equal(t, "v", ctx.Value(reqCtxKey{}), "the parent's values after the end")
			assert.Equal(t, tt.wantCause == errCancelled, rc.cancelledBy(errCancelled))
			if tt.derive {
				assert.True(t, closed(derived.Done()), "a derived context is done")
				assert.Equal(t, tt.wantCause, context.Cause(derived), "a derived context's cause")
				assert.True(t, closed(afterRan), "AfterFunc ran")
			}
			// A context derived after the fact is done at once, with
			// the same cause.
			late, cancel := context.WithCancel(ctx)
			defer cancel()
			assert.True(t, closed(late.Done()))
			assert.Equal(t, tt.wantCause, context.Cause(late))
		})
	}
}

// TestRequestContextDeadline: the parent's deadline is the request's, and
// its expiry reaches the request's context as context.DeadlineExceeded.
func TestRequestContextDeadline(t *testing.T) {
	t.Parallel()
	parent, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	rc := &requestContext{}
	rc.init(parent)
	want, _ := parent.Deadline()
	got, ok := rc.Deadline()
	require.True(t, ok)
	assert.Equal(t, want, got)
	assert.True(t, closed(rc.Done()))
	assert.ErrorIs(t, rc.Err(), context.DeadlineExceeded)
	rc.end()
	assert.ErrorIs(t, rc.Err(), context.DeadlineExceeded, "the end keeps the parent's error")
}

// TestRequestContextConcurrent runs the client's cancel, the request's
// end and the handler's use of its context at once (run with -race).
func TestRequestContextConcurrent(t *testing.T) {
	t.Parallel()
	for range 200 {
		rc := &requestContext{}
		rc.init(context.Background())
		var wg sync.WaitGroup
		wg.Add(3)
		go func() { defer wg.Done(); rc.cancel(errCancelled) }()
		go func() { defer wg.Done(); _ = rc.Err(); _ = context.Cause(rc); <-rc.Done() }()
		go func() { defer wg.Done(); _ = rc.Value(reqCtxKey{}); rc.end() }()
		wg.Wait()
		assert.ErrorIs(t, rc.Err(), context.Canceled)
	}
}
