// The HTTP engines that run in this process, for unit tests that drive each one's listener: node:http
// always, uWS when a binary of it loads for this Node and C library (src/http/uws.ts).

import * as nodeEngine from '../../../src/http/node-engine.js';
import * as uwsEngine from '../../../src/http/uws.js';
import { uwsAvailability } from '../../../src/http/uws-module.js';

export const ENGINES = [
  ...('module' in uwsAvailability() ? [{ name: 'uws', listen: uwsEngine.listen }] : []),
  { name: 'node', listen: nodeEngine.listen },
] as const;
