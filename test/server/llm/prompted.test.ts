import { describe, expect, it } from 'vitest';
import { promptedRequest } from '../../../server/llm/prompted.js';
import type { ChatMessage, ChatRequest } from '../../../server/llm/types.js';

const tools: ChatRequest['tools'] = [
  { type: 'function', function: { name: 'get_time', description: 'The time in a time zone.', parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] } } },
];

describe('promptedRequest', () => {
  it('sends no tools, and describes them with the reply format in the system prompt', () => {
    const sent = promptedRequest({ model: 'm', messages: [{ role: 'user', content: 'Time in Tokyo?' }], tools });
    expect(sent.tools).toBeUndefined();
    expect(sent.messages[0]!.role).toBe('system');
    expect(sent.messages[0]!.content).toContain('<tool_call>');
    expect(sent.messages[0]!.content).toContain('- get_time: The time in a time zone. Arguments: {"timezone": string (required)}');
    expect(sent.messages[1]).toEqual({ role: 'user', content: 'Time in Tokyo?' });
  });

  it("adds to the caller's own system prompt rather than a second one", () => {
    const sent = promptedRequest({ model: 'm', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], tools });
    expect(sent.messages.filter((m) => m.role === 'system')).toHaveLength(1);
    expect(sent.messages[0]!.content.startsWith('Be brief.\n\n')).toBe(true);
  });

  it('writes earlier calls back as text and their results as one user message', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'Time in Tokyo and Paris?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'a', name: 'get_time', arguments: { timezone: 'Asia/Tokyo' } },
          { id: 'b', name: 'get_time', arguments: '{"timezone": "Europe/Paris"}' },
        ],
      },
      { role: 'tool', tool_call_id: 'a', tool_name: 'get_time', content: '{"success":true,"result":"09:00"}' },
      { role: 'tool', tool_call_id: 'b', tool_name: 'get_time', content: '{"success":true,"result":"01:00"}' },
    ];
    const sent = promptedRequest({ model: 'm', messages: history, tools });
    expect(sent.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(sent.messages[2]!.content).toBe(
      'Checking.\n<tool_call>\n{"name":"get_time","arguments":{"timezone":"Asia/Tokyo"}}\n</tool_call>\n<tool_call>\n{"name":"get_time","arguments":{"timezone":"Europe/Paris"}}\n</tool_call>',
    );
    expect(sent.messages[3]!.content.match(/<tool_response>/g)).toHaveLength(2);
    expect(sent.messages[3]!.content).toContain('09:00');
    expect(sent.messages[3]!.content).toContain('01:00');
    expect(sent.messages.some((m) => 'tool_calls' in m)).toBe(false);
  });
});
