import { mount } from 'svelte';
import '../styles.css';
import { approvalIdFrom, browserSource } from './browser-source';
import { desktopSource } from './desktop-source';
import Popup from './Popup.svelte';
import { PopupState } from './popup-state.svelte';

// Inside the desktop app the preload's bridge is the only way in (the window has no session or token); in a
// browser the page uses the gateway's API with the owner session.
const source = window.pincer ? desktopSource(window.pincer) : browserSource(approvalIdFrom(location));

mount(Popup, { target: document.getElementById('app')!, props: { popup: new PopupState(source) } });
