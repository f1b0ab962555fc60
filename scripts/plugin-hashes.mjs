// Records the bundled plugins' hashes in the build (dist/server/bundled-plugins.json), with the gateway's own
// hashing: at start the gateway trusts a bundled plugin only while its folder still hashes to this record.
import { fileURLToPath } from 'node:url';
import { bundledRecordFile, writeBundledRecord } from '../dist/server/plugins/bundled.js';

const plugins = fileURLToPath(new URL('../plugins', import.meta.url));
const record = writeBundledRecord(plugins, bundledRecordFile());
const names = Object.keys(record.plugins);
if (names.length === 0) console.warn('pincer: no bundled plugins to record');
