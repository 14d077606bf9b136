/** The signal feed; live signals arrive in a later change. */
export function FeedPane() {
  return (
    <section className="pane" aria-labelledby="feed-title">
      <div className="pane-header">
        <h2 id="feed-title">Signals</h2>
      </div>
      <div className="pane-body pane-empty" data-testid="feed-empty">
        Waiting for signals…
      </div>
    </section>
  );
}
