/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: string;
  id: string | null;
}

/**
 * Reads server-sent events from a response body (text/event-stream): `event:`, `data:` (several join
 * with newlines) and `id:` lines, an empty line ending each event; comments (`:`) are skipped.
 */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = 'message';
  let data: string[] = [];
  let id: string | null = null;
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.search(/\r?\n/);
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(buffer[newline] === '\r' ? newline + 2 : newline + 1);
      newline = buffer.search(/\r?\n/);
      if (line === '') {
        if (data.length > 0) yield { event, data: data.join('\n'), id };
        event = 'message';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const at = line.indexOf(':');
      const field = at < 0 ? line : line.slice(0, at);
      const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
  }
}
