/** Draws the tab icon: Pincer's mark, with a red badge showing how many approvals wait (9+ beyond nine). */
export function faviconDataUrl(pending: number): string {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 64;
  const g = canvas.getContext('2d');
  if (!g) return 'data:,';
  g.fillStyle = '#1f5fbf';
  g.beginPath();
  g.roundRect(4, 4, 56, 56, 14);
  g.fill();
  g.fillStyle = '#ffffff';
  g.font = 'bold 40px system-ui, sans-serif';
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillText('P', 32, 35);
  if (pending > 0) {
    g.fillStyle = '#d93025';
    g.beginPath();
    g.arc(44, 20, 19, 0, Math.PI * 2);
    g.fill();
    g.fillStyle = '#ffffff';
    g.font = 'bold 26px system-ui, sans-serif';
    g.fillText(pending > 9 ? '9+' : String(pending), 44, 21);
  }
  return canvas.toDataURL('image/png');
}

/** The page title: the pending count first, so it reads in a crowded tab bar. */
export function pageTitle(pending: number, view: string): string {
  return `${pending > 0 ? `(${pending}) ` : ''}${view} · Pincer`;
}
