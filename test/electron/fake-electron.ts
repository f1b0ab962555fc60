/**
 * A fake of the parts of the `electron` module the shell uses, for tests under plain Node (Electron's binary cannot
 * run here). vitest.config.ts maps `electron` to this file. Each piece is typed against Electron's own declarations
 * (`implements Partial<…>`, `satisfies Partial<…>`), so a signature the shell relies on cannot drift from the real
 * API; behaviour follows Electron's documentation (quit emits before-quit, which can be prevented; a handler per
 * invoke channel; destroyed windows answer isDestroyed()).
 */
import { EventEmitter } from 'node:events';
import type Electron from 'electron';

type Listener = (...args: any[]) => void; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Electron's event object: what listeners receive first. */
export function fakeEvent(): { defaultPrevented: boolean; preventDefault(): void } {
  return {
    defaultPrevented: false,
    preventDefault() {
      this.defaultPrevented = true;
    },
  };
}

let nextContentsId = 1;

export class FakeWebContents extends EventEmitter {
  readonly id = nextContentsId++;
  url = '';
  openHandler: ((details: { url: string }) => { action: 'allow' | 'deny' }) | undefined;
  readonly mainFrame = { url: '', parent: null, top: null as unknown };

  constructor(readonly window: FakeBrowserWindow | undefined) {
    super();
    this.mainFrame.top = this.mainFrame;
  }

  getURL(): string {
    return this.url;
  }

  setWindowOpenHandler(handler: (details: Electron.HandlerDetails) => Electron.WindowOpenHandlerResponse): void {
    this.openHandler = handler as never;
  }

  /** What a page asking to navigate to `url` gets: true when the shell let it go. */
  tryNavigate(url: string): boolean {
    const event = fakeEvent();
    this.emit('will-navigate', event, url);
    return !event.defaultPrevented;
  }
}

export class FakeBrowserWindow
  extends EventEmitter
  implements Pick<Electron.BrowserWindow, 'loadURL' | 'show' | 'showInactive' | 'focus' | 'isMinimized' | 'restore' | 'isDestroyed' | 'close' | 'destroy'>
{
  static all: FakeBrowserWindow[] = [];
  readonly webContents: FakeWebContents;
  readonly options: Electron.BrowserWindowConstructorOptions;
  shown: 'no' | 'active' | 'inactive' = 'no';
  focused = false;
  #destroyed = false;

  constructor(options: Electron.BrowserWindowConstructorOptions = {}) {
    super();
    this.options = options;
    this.webContents = new FakeWebContents(this);
    FakeBrowserWindow.all.push(this);
  }

  async loadURL(url: string): Promise<void> {
    this.webContents.url = url;
    this.webContents.mainFrame.url = url;
    // The page loaded: Electron says so before first paint.
    queueMicrotask(() => !this.#destroyed && this.emit('ready-to-show'));
  }

  show(): void {
    this.shown = 'active';
    this.focused = true;
  }

  showInactive(): void {
    this.shown = 'inactive';
  }

  focus(): void {
    this.focused = true;
  }

  isMinimized(): boolean {
    return false;
  }

  restore(): void {}

  isDestroyed(): boolean {
    return this.#destroyed;
  }

  /** The owner closed the window (or the shell did). */
  close(): void {
    this.destroy();
  }

  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.emit('closed');
  }
}

export class FakeTray extends EventEmitter implements Pick<Electron.Tray, 'setImage' | 'setToolTip' | 'setContextMenu' | 'isDestroyed' | 'destroy'> {
  static all: FakeTray[] = [];
  image: unknown;
  tooltip = '';
  menu: FakeMenu | undefined;
  #destroyed = false;

  constructor(image: Electron.NativeImage | string) {
    super();
    this.image = image;
    FakeTray.all.push(this);
  }

  setImage(image: Electron.NativeImage | string): void {
    this.image = image;
  }

  setToolTip(toolTip: string): void {
    this.tooltip = toolTip;
  }

  setContextMenu(menu: Electron.Menu | null): void {
    this.menu = (menu as unknown as FakeMenu) ?? undefined;
  }

  isDestroyed(): boolean {
    return this.#destroyed;
  }

  destroy(): void {
    this.#destroyed = true;
  }
}

export class FakeMenu {
  constructor(readonly items: Electron.MenuItemConstructorOptions[]) {}

  static buildFromTemplate(template: Array<Electron.MenuItemConstructorOptions | Electron.MenuItem>): Electron.Menu {
    return new FakeMenu(template as Electron.MenuItemConstructorOptions[]) as unknown as Electron.Menu;
  }
}

export class FakeNotification extends EventEmitter implements Pick<Electron.Notification, 'show' | 'close'> {
  static all: FakeNotification[] = [];
  static supported = true;
  shown = false;
  closed = false;

  constructor(readonly options: Electron.NotificationConstructorOptions = {}) {
    super();
    FakeNotification.all.push(this);
  }

  static isSupported(): boolean {
    return FakeNotification.supported;
  }

  show(): void {
    this.shown = true;
  }

  close(): void {
    this.closed = true;
  }
}

class FakeSession {
  requestHandler: Parameters<Electron.Session['setPermissionRequestHandler']>[0] = null;
  checkHandler: Parameters<Electron.Session['setPermissionCheckHandler']>[0] = null;

  setPermissionRequestHandler(handler: Parameters<Electron.Session['setPermissionRequestHandler']>[0]): void {
    this.requestHandler = handler;
  }

  setPermissionCheckHandler(handler: Parameters<Electron.Session['setPermissionCheckHandler']>[0]): void {
    this.checkHandler = handler;
  }
}

const appEvents = new EventEmitter();

/** What the tests read and steer. */
export const fake = {
  singleInstance: true,
  quitRequested: 0,
  quitted: false,
  exitCode: undefined as number | undefined,
  clipboardText: '',
  errorBoxes: [] as { title: string; content: string }[],
  openedExternally: [] as string[],
  loginItem: { openAtLogin: false },
  isPackaged: false,
  handlers: new Map<string, Listener>(),
  listeners: new Map<string, Listener[]>(),
  sessions: new Map<string, FakeSession>([['', new FakeSession()]]),
  exposed: new Map<string, unknown>(),
  rendererCalls: [] as { kind: 'invoke' | 'send'; channel: string; args: unknown[] }[],

  /** A page's `ipcRenderer.invoke`, from the given contents and frame, as ipcMain.handle receives it. */
  async invoke(channel: string, sender: FakeWebContents, ...args: unknown[]): Promise<unknown> {
    return fake.invokeFromFrame(channel, sender, sender.mainFrame, ...args);
  },

  async invokeFromFrame(channel: string, sender: FakeWebContents, frame: { url: string; parent: unknown } | null, ...args: unknown[]): Promise<unknown> {
    const handler = fake.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return handler({ sender, senderFrame: frame, frameId: 1, processId: 1 }, ...structuredClone(args));
  },

  /** A page's `ipcRenderer.send`. */
  send(channel: string, sender: FakeWebContents, ...args: unknown[]): void {
    for (const listener of fake.listeners.get(channel) ?? []) listener({ sender, senderFrame: sender.mainFrame }, ...structuredClone(args));
  },

  emitApp(event: string, ...args: unknown[]): void {
    appEvents.emit(event, ...args);
  },

  reset(): void {
    FakeBrowserWindow.all = [];
    FakeTray.all = [];
    FakeNotification.all = [];
    FakeNotification.supported = true;
    appEvents.removeAllListeners();
    Object.assign(fake, { singleInstance: true, quitRequested: 0, quitted: false, exitCode: undefined, clipboardText: '', isPackaged: false });
    fake.errorBoxes = [];
    fake.openedExternally = [];
    fake.loginItem = { openAtLogin: false };
    fake.handlers.clear();
    fake.listeners.clear();
    fake.sessions = new Map([['', new FakeSession()]]);
    fake.exposed.clear();
    fake.rendererCalls = [];
  },
};

export const app = {
  requestSingleInstanceLock: () => fake.singleInstance,
  whenReady: () => Promise.resolve(),
  on: ((event: string, listener: Listener) => {
    appEvents.on(event, listener);
    return app;
  }) as unknown as Electron.App['on'],
  /** As Electron: before-quit first (a listener may prevent it), then the app ends. */
  quit: () => {
    fake.quitRequested += 1;
    const event = fakeEvent();
    appEvents.emit('before-quit', event);
    if (!event.defaultPrevented) fake.quitted = true;
  },
  exit: (exitCode?: number) => {
    fake.exitCode = exitCode ?? 0;
    fake.quitted = true;
  },
  getLoginItemSettings: () => ({ ...fake.loginItem }) as Electron.LoginItemSettings,
  setLoginItemSettings: (settings: Electron.Settings) => {
    fake.loginItem.openAtLogin = settings.openAtLogin ?? false;
  },
  getAppPath: () => process.cwd(),
  get isPackaged() {
    return fake.isPackaged;
  },
} satisfies Partial<Electron.App>;

export const ipcMain = {
  handle: (channel: string, listener: (event: Electron.IpcMainInvokeEvent, ...args: any[]) => any) => { // eslint-disable-line @typescript-eslint/no-explicit-any
    if (fake.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    fake.handlers.set(channel, listener as Listener);
  },
  removeHandler: (channel: string) => void fake.handlers.delete(channel),
  on: ((channel: string, listener: Listener) => {
    fake.listeners.set(channel, [...(fake.listeners.get(channel) ?? []), listener]);
    return ipcMain;
  }) as unknown as Electron.IpcMain['on'],
  removeAllListeners: ((channel?: string) => {
    if (channel === undefined) fake.listeners.clear();
    else fake.listeners.delete(channel);
    return ipcMain;
  }) as unknown as Electron.IpcMain['removeAllListeners'],
} satisfies Partial<Electron.IpcMain>;

export const clipboard = {
  readText: async () => fake.clipboardText,
  writeText: async (text: string) => void (fake.clipboardText = text),
} satisfies Partial<Electron.Clipboard>;

export const dialog = {
  showErrorBox: (title: string, content: string) => void fake.errorBoxes.push({ title, content }),
} satisfies Partial<Electron.Dialog>;

export const shell = {
  openExternal: async (url: string) => void fake.openedExternally.push(url),
} satisfies Partial<Electron.Shell>;

export const screen = {
  getPrimaryDisplay: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }) as Electron.Display,
} satisfies Partial<Electron.Screen>;

export const session = {
  get defaultSession() {
    return fake.sessions.get('')! as unknown as Electron.Session;
  },
  fromPartition: (partition: string) => {
    if (!fake.sessions.has(partition)) fake.sessions.set(partition, new FakeSession());
    return fake.sessions.get(partition)! as unknown as Electron.Session;
  },
};

export const nativeImage = {
  createFromPath: (path: string) => ({ path }) as unknown as Electron.NativeImage,
};

/** The preload's side: what it exposes to the page, and what the page's calls send. */
export const contextBridge = {
  exposeInMainWorld: (apiKey: string, api: unknown) => void fake.exposed.set(apiKey, api),
} satisfies Partial<Electron.ContextBridge>;

export const ipcRenderer = {
  invoke: async (channel: string, ...args: unknown[]) => void fake.rendererCalls.push({ kind: 'invoke', channel, args }),
  send: (channel: string, ...args: unknown[]) => void fake.rendererCalls.push({ kind: 'send', channel, args }),
} satisfies Partial<Electron.IpcRenderer>;

export { FakeBrowserWindow as BrowserWindow, FakeTray as Tray, FakeMenu as Menu, FakeNotification as Notification };

export default {
  app,
  BrowserWindow: FakeBrowserWindow,
  Tray: FakeTray,
  Menu: FakeMenu,
  Notification: FakeNotification,
  ipcMain,
  ipcRenderer,
  contextBridge,
  clipboard,
  dialog,
  shell,
  screen,
  session,
  nativeImage,
};
