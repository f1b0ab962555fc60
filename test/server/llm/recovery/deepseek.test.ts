import { describe, expect, it } from 'vitest';
import { callsOf, recover } from './recover-helpers.js';

/** A DeepSeek special token as the tokenizer writes it: fullwidth bars (U+FF5C), U+2581 for spaces. */
const t = (words: string) => `<｜${words.split(' ').join('▁')}｜>`;
/** The same token as some servers detokenise it. */
const ascii = (words: string) => `<|${words.split(' ').join('_')}|>`;

describe('deepseek shape', () => {
  it('reads the V3 / R1 shape: function, name, fenced JSON', () => {
    const r = recover(`${t('tool calls begin')}${t('tool call begin')}function${t('tool sep')}get_time\n\`\`\`json\n{"timezone": "UTC"}\n\`\`\`${t('tool call end')}${t('tool calls end')}`);
    expect(r.calls).toEqual([{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'deepseek' }]);
    expect(r.text).toBe('');
  });

  it('reads several V3 calls with prose before and the end-of-sentence token', () => {
    const r = recover(
      `I'll check both.\n\n${t('tool calls begin')}${t('tool call begin')}function${t('tool sep')}get_time\n\`\`\`json\n{"timezone": "Asia/Tokyo"}\n\`\`\`${t('tool call end')}\n${t('tool call begin')}function${t('tool sep')}calculate\n\`\`\`json\n{"expression": "12 * 12"}\n\`\`\`${t('tool call end')}${t('tool calls end')}${t('end of sentence')}`,
    );
    expect(callsOf(r)).toEqual([
      ['get_time', { timezone: 'Asia/Tokyo' }],
      ['calculate', { expression: '12 * 12' }],
    ]);
    expect(r.text).toBe("I'll check both.");
  });

  it('reads the V3.1 shape: name before the separator', () => {
    const r = recover(`${t('tool calls begin')}${t('tool call begin')}get_time${t('tool sep')}{"timezone": "UTC"}${t('tool call end')}${t('tool call begin')}calculate${t('tool sep')}{"expression": "1+1"}${t('tool call end')}${t('tool calls end')}`);
    expect(callsOf(r)).toEqual([
      ['get_time', { timezone: 'UTC' }],
      ['calculate', { expression: '1+1' }],
    ]);
  });

  it('reads the ASCII spelling of the tokens', () => {
    const r = recover(`Sure.${ascii('tool calls begin')}${ascii('tool call begin')}get_time${ascii('tool sep')}{"timezone": "UTC"}${ascii('tool call end')}${ascii('tool calls end')}`);
    expect(callsOf(r)).toEqual([['get_time', { timezone: 'UTC' }]]);
    expect(r.text).toBe('Sure.');
  });

  it('keeps broken arguments as written, resolves functions., keeps unicode and escapes', () => {
    const broken = recover(`${t('tool calls begin')}${t('tool call begin')}function${t('tool sep')}calculate\n\`\`\`json\n{"expression": "2+2",}\n\`\`\`${t('tool call end')}${t('tool calls end')}`);
    expect(callsOf(broken)).toEqual([['calculate', '{"expression": "2+2",}']]);
    const prefixed = recover(`${t('tool calls begin')}${t('tool call begin')}functions.write_file${t('tool sep')}{"path": "日本.txt", "content": "\\"x\\""}${t('tool call end')}${t('tool calls end')}`);
    expect(prefixed.calls).toEqual([{ name: 'write_file', writtenName: 'functions.write_file', arguments: { path: '日本.txt', content: '"x"' }, shape: 'deepseek' }]);
  });

  it('reads a V3.1 call without the outer tokens, in either spelling', () => {
    const r = recover(`Sure. ${t('tool call begin')}get_time${t('tool sep')}{"timezone": "UTC"}${t('tool call end')}`);
    expect(r).toEqual({ calls: [{ name: 'get_time', arguments: { timezone: 'UTC' }, shape: 'deepseek' }], text: 'Sure.' });
    const two = recover(`${ascii('tool call begin')}get_time${ascii('tool sep')}{}${ascii('tool call end')}\n${ascii('tool call begin')}calculate${ascii('tool sep')}{"expression": "1"}${ascii('tool call end')}`);
    expect(callsOf(two)).toEqual([
      ['get_time', {}],
      ['calculate', { expression: '1' }],
    ]);
    expect(callsOf(recover(`${t('tool call begin')}get_time${t('tool sep')}{"timezone": "UTC"}`))).toEqual([['get_time', { timezone: 'UTC' }]]);
    const unoffered = `${t('tool call begin')}drop_tables${t('tool sep')}{}${t('tool call end')}`;
    expect(recover(unoffered)).toEqual({ calls: [], text: unoffered });
  });

  it('tolerates a reply cut before the closing tokens', () => {
    const r = recover(`${t('tool calls begin')}${t('tool call begin')}get_time${t('tool sep')}{"timezone": "UTC"}`);
    expect(callsOf(r)).toEqual([['get_time', { timezone: 'UTC' }]]);
  });

  it('leaves unoffered tools as text', () => {
    const text = `${t('tool calls begin')}${t('tool call begin')}function${t('tool sep')}drop_tables\n\`\`\`json\n{}\n\`\`\`${t('tool call end')}${t('tool calls end')}`;
    expect(recover(text)).toEqual({ calls: [], text });
  });
});
