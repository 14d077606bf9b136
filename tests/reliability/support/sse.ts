/**
 * A reader of the server's signal stream (`GET /api/signals/stream`, server-sent events), as a browser
 * tab keeps it open: everything received so far, as text.
 */
export async function openSignalStream(base: string): Promise<{ text(): string; close(): void }> {
  const controller = new AbortController();
  const res = await fetch(`${base}/api/signals/stream`, { signal: controller.signal });
  if (!res.ok || res.body === null) throw new Error(`signal stream answered ${res.status}`);
  let received = '';
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        received += decoder.decode(value, { stream: true });
      }
    } catch {
      // closed
    }
  })();
  return { text: () => received, close: () => controller.abort() };
}
