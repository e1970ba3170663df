// Passkeys (WebAuthn): registering one on the account page, and signing in with one
// without typing a name (the authenticator offers the passkeys it holds for this site and
// says whose each is). The server's options and the authenticator's answers travel as
// JSON, their binary fields as base64url.
import { api } from './core.js';

/** Whether this browser, on this page, can use passkeys at all (a secure page, WebAuthn). */
export function passkeysAvailable() {
  return typeof window.PublicKeyCredential === 'function' && !!navigator.credentials;
}

/** Why passkeys cannot be used here, and what to do (`instead`), in words a player can act on. */
export function noPasskeysText(instead = 'sign in with your name and password') {
  if (!window.isSecureContext) return `Passkeys need a secure page (an https:// address, or localhost): ${instead}.`;
  return `This browser cannot use passkeys: ${instead}.`;
}

// ---------------------------------------------------------------- base64url

function fromB64url(s) {
  const b64 = String(s).replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}

function toB64url(buf) {
  if (!buf) return null;
  const bytes = new Uint8Array(buf instanceof ArrayBuffer ? buf : buf.buffer);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The server's `options.publicKey` with its binary fields as ArrayBuffers. */
function publicKeyOf(options) {
  const pk = { ...options.publicKey };
  pk.challenge = fromB64url(pk.challenge);
  if (pk.user) pk.user = { ...pk.user, id: fromB64url(pk.user.id) };
  for (const list of ['excludeCredentials', 'allowCredentials']) {
    if (Array.isArray(pk[list])) pk[list] = pk[list].map((c) => ({ ...c, id: fromB64url(c.id) }));
  }
  return pk;
}

function extensionsOf(cred) {
  try { return cred.getClientExtensionResults() || {}; } catch { return {}; }
}

// ---------------------------------------------------------------- errors

/** An error of the browser's WebAuthn call (not the server's), in words. */
export class PasskeyError extends Error {}

/** What the browser's refusal (a DOMException of create/get) means for the player. */
function browserRefusal(e, registering) {
  const where = location.hostname;
  switch (e && e.name) {
    case 'NotAllowedError':
      return registering
        ? 'No passkey was made: it was cancelled, or took too long. Try again when you are ready.'
        : 'The passkey sign-in was cancelled, or took too long, or this device holds no passkey for Worp: try again, or sign in with your name and password.';
    case 'InvalidStateError':
      return 'This device (or security key) already holds a passkey of yours: it needs no second one.';
    case 'SecurityError':
      return /^[\d.]+$|^\[|:/.test(where)
        ? `Passkeys do not work at an IP address (${where}): open Worp by its name${where === '127.0.0.1' || where === '[::1]' ? ', e.g. localhost' : ''}, and try again.`
        : `Passkeys for Worp do not work at this address (${where}): open Worp at its usual address.`;
    case 'NotSupportedError':
      return 'This device has no authenticator that can make a passkey for Worp.';
    case 'AbortError':
      return 'The passkey request was interrupted: try again.';
    default:
      return `The browser could not use a passkey: ${e && e.message ? e.message : e}.`;
  }
}

async function ask(fn, registering) {
  if (!passkeysAvailable()) throw new PasskeyError(noPasskeysText());
  try {
    const cred = await fn();
    if (!cred) throw new PasskeyError(browserRefusal({ name: 'NotAllowedError' }, registering));
    return cred;
  } catch (e) {
    if (e instanceof PasskeyError) throw e;
    throw new PasskeyError(browserRefusal(e, registering));
  }
}

// ---------------------------------------------------------------- the two ceremonies

/** What the browser answered, as JSON: the binary fields `fields` of its response as base64url. */
function asJson(cred, fields) {
  const response = {};
  for (const f of fields) response[f] = toB64url(cred.response[f]);
  return { id: cred.id, rawId: toB64url(cred.rawId), type: cred.type, response, extensions: extensionsOf(cred) };
}

/** Makes a passkey for the signed-in player, named `name` (or after this browser). */
export async function addPasskey(name) {
  if (!passkeysAvailable()) throw new PasskeyError(noPasskeysText());
  const { ceremony, options } = await api('POST', '/v1/players/me/passkeys/options');
  const cred = await ask(() => navigator.credentials.create({ publicKey: publicKeyOf(options) }), true);
  const credential = asJson(cred, ['attestationObject', 'clientDataJSON']);
  credential.response.transports = typeof cred.response.getTransports === 'function' ? cred.response.getTransports() : [];
  return api('POST', '/v1/players/me/passkeys', { body: { ceremony, credential, ...(name ? { name } : {}) } });
}

/** Signs in with a passkey the authenticator holds: the server's session answer. */
export async function passkeySession() {
  if (!passkeysAvailable()) throw new PasskeyError(noPasskeysText());
  const { ceremony, options } = await api('POST', '/v1/sessions/passkey/options', { auth: false });
  const cred = await ask(() => navigator.credentials.get({ publicKey: publicKeyOf(options) }), false);
  const credential = asJson(cred, ['authenticatorData', 'clientDataJSON', 'signature', 'userHandle']);
  return api('POST', '/v1/sessions/passkey', { body: { ceremony, credential }, auth: false });
}
