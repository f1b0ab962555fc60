/** The colour family of a status: green, yellow, red, blue, grey. */
export type Tone = 'ok' | 'wait' | 'fail' | 'run' | 'neutral';

/** How a status shows: colour is never the only signal, so each has its own icon and word, and a hint on hover. */
export interface Look {
  icon: string;
  label: string;
  tone: Tone;
  hint: string;
}
