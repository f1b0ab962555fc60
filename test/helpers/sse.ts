/** Reads a Server-Sent Events answer as it arrives: events in order, comment lines counted apart. */
export interface SseEvent {
  event: string;
  data: string;
}

export async function* readSse(res: Response): AsyncGenerator<SseEvent | { comment: string }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (block.startsWith(':')) {
        yield { comment: block.slice(1).trim() };
        continue;
      }
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      yield { event, data: data.join('\n') };
    }
  }
}

/** The JSON-RPC messages (or other JSON) of an SSE answer, as they arrive; comments and empty events are skipped. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function* sseJson(res: Response): AsyncGenerator<any> {
  for await (const block of readSse(res)) {
    if ('data' in block && block.data) yield JSON.parse(block.data);
  }
}
