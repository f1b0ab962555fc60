/**
 * Where things are in a JSON text, for errors a person fixes by hand: the line and column of the first syntax error
 * (JSON.parse names none, or only an offset), and of each object key. Read only once config.json has failed.
 */

export interface Place {
  line: number;
  column: number;
}

/** "line 3, column 5" of a UTF-16 offset, both counted from 1. */
export function placeOf(text: string, offset: number): Place {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}

export function describePlace(place: Place): string {
  return `line ${place.line}, column ${place.column}`;
}

/** What scanning a JSON text found: the offset of its first syntax error, and where each key (`llm.model`) is written. */
export interface JsonPlaces {
  errorAt?: number;
  keys: Map<string, number>;
}

class Stop extends Error {
  constructor(readonly at: number) {
    super('json');
  }
}

export function scanJson(text: string): JsonPlaces {
  const keys = new Map<string, number>();
  let i = 0;
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const string = (): string => {
    const start = i;
    if (text[i] !== '"') throw new Stop(i);
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i]! < ' ') throw new Stop(i);
      i += text[i] === '\\' ? 2 : 1;
    }
    if (i >= text.length) throw new Stop(i);
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      throw new Stop(start);
    }
  };
  const literal = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|^(?:true|false|null)\b/.exec(text.slice(i, i + 400));
    if (!match) throw new Stop(i);
    i += match[0].length;
  };
  const value = (path: string[]) => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      space();
      if (text[i] === '}') return void i++;
      for (;;) {
        space();
        const at = i;
        const key = string();
        keys.set([...path, key].join('.'), at);
        space();
        if (text[i] !== ':') throw new Stop(i);
        i++;
        value([...path, key]);
        space();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else throw new Stop(i);
      }
    }
    if (c === '[') {
      i++;
      space();
      if (text[i] === ']') return void i++;
      for (;;) {
        value([...path, '[]']);
        space();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else throw new Stop(i);
      }
    }
    if (c === '"') return void string();
    literal();
  };
  try {
    value([]);
    space();
    if (i < text.length) throw new Stop(i);
    return { keys };
  } catch (error) {
    if (error instanceof Stop) return { errorAt: Math.min(error.at, text.length), keys };
    throw error;
  }
}
