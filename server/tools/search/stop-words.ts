/**
 * Words that say nothing about which tool is meant: English function words, and what people put around a request
 * ("can you please tell me …", "I want to …"). Left out of the index and of queries alike.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    // Function words.
    'a about above after again against all also am an and any are as at be because been before being below between ' +
    'both but by did do does doing down during each either else etc ever every few for from further had has have ' +
    'having he her here hers herself him himself his how however i if in into is it its itself just me mine more ' +
    'most my myself neither nor of off on once only or other our ours ourselves over own same she should so some ' +
    'such than that the their theirs them themselves then there these they this those through thus to too under until ' +
    'upon us very via was we were what whatever when where whether which while who whom whose why will with within ' +
    'without would yet you your yours yourself yourselves ' +
    // What a request is wrapped in.
    'can could may might must shall please pls plz thanks thank hey hi hello ok okay want wanna need needs like ' +
    'let lets tell give gimme something anything everything thing things someone somebody really actually quickly ' +
    'now right currently also using use used uses way able possible maybe kindly help going gonna called named'
  ).split(' '),
);

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}
