/**
 * Edit distance with adjacent transpositions (optimal string alignment, "restricted Damerau-Levenshtein") over
 * code points, stopping early once every path is past `max`: answers `max + 1` for anything farther.
 */
export function editDistance(a: string, b: string, max: number): number {
  const s = [...a];
  const t = [...b];
  if (Math.abs(s.length - t.length) > max) return max + 1;
  if (s.length === 0 || t.length === 0) return Math.min(Math.max(s.length, t.length), max + 1);
  let twoBack = new Array<number>(t.length + 1).fill(0);
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  let current = new Array<number>(t.length + 1).fill(0);
  for (let i = 1; i <= s.length; i++) {
    current[0] = i;
    let rowBest = i;
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) value = Math.min(value, twoBack[j - 2]! + 1);
      current[j] = value;
      if (value < rowBest) rowBest = value;
    }
    if (rowBest > max) return max + 1;
    [twoBack, previous, current] = [previous, current, twoBack];
  }
  return Math.min(previous[t.length]!, max + 1);
}
