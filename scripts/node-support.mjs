// Which Node versions Tusk supports; package.json "engines" and README "Quick start" say the same.
// Supported: the LTS lines 24 and 22, from the first release every dependency declares it runs on
// (@napi-rs/cli's lzma: ^22.20 || ^24.12 || >=25). Later lines run, untested. Node 20 reached its end of
// life on 2026-04-30 (https://github.com/nodejs/Release#release-schedule): it still runs Tusk,
// because this project's own machines ship it, but nothing is kept back for it.

export const SUPPORTED = 'Node 24 (24.12 or later) or Node 22 (22.20 or later)';
/** The oldest Node that runs Tusk at all: Vite 8, which builds the console in set-up, needs 20.19. */
export const OLDEST = [20, 19];

/**
 * Where `version` (e.g. `24.22.3` or `v20.20.2`) stands.
 * @returns {{ verdict: 'supported' | 'runs' | 'refused', message?: string }} `runs`: works but is
 *   not a supported line (the message says why); `refused`: too old to run
 */
export function nodeSupport(version) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  if (major < OLDEST[0] || (major === OLDEST[0] && minor < OLDEST[1])) {
    return { verdict: 'refused', message: `Node ${version} is too old to run Tusk (${OLDEST.join('.')} at the least); use ${SUPPORTED}` };
  }
  if ((major === 22 && minor >= 20) || (major === 24 && minor >= 12)) return { verdict: 'supported' };
  const why =
    major === 20 ? 'past its end of life (2026-04-30): Tusk still runs on it'
    : major > 24 ? 'newer than the lines Tusk is tested on'
    : 'not a release Tusk supports';
  return { verdict: 'runs', message: `Node ${version} is ${why}; use ${SUPPORTED}` };
}
