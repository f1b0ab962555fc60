// The popup windows' preload. Sandboxed preloads are CommonJS and may require only `electron` (and a few built-ins):
// everything it needs is in this file; the contract is imported for its types alone.
import electron = require('electron');
import type { DesktopApi, DesktopApiKey, InvokeChannel, InvokeChannels, SendChannel, SendChannels } from '../ipc-contract.js';

const { contextBridge, ipcRenderer } = electron;

function invoke<C extends InvokeChannel>(channel: C, ...args: InvokeChannels[C]['request']): Promise<InvokeChannels[C]['response']> {
  return ipcRenderer.invoke(channel, ...args) as Promise<InvokeChannels[C]['response']>;
}

function send<C extends SendChannel>(channel: C, ...args: SendChannels[C]): void {
  ipcRenderer.send(channel, ...args);
}

/** A few named methods; the page never sees ipcRenderer, so it can reach no channel but these. */
const api: DesktopApi = {
  approval: () => invoke('popup:approval'),
  decide: (answer) => invoke('popup:decide', answer),
  close: () => send('popup:close'),
};

const key: DesktopApiKey = 'pincer';
contextBridge.exposeInMainWorld(key, api);
