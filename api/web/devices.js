// Web Push on this device: the service worker (/sw.js) is registered when the client
// starts; turning notifications on asks the browser's permission, subscribes with the
// server's VAPID key (GET /v1/push/key) and hands the subscription to the server, which
// lists it among the player's devices on the account page.
import { api } from './core.js';

/** Whether this browser, on this page, can receive Web Push notices at all. */
export function pushAvailable() {
  return !!window.isSecureContext && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

/** Why notices cannot be had here, in words a player can act on. */
export function noPushText() {
  if (!window.isSecureContext) return 'Notifications need a secure page (an https:// address, or localhost).';
  return 'This browser cannot show notifications from Worp: use another browser, or install Worp from this one.';
}

/** Registers the service worker (quietly: without one, the rest of Worp works all the same). */
export function registerServiceWorker() {
  if (!window.isSecureContext || !('serviceWorker' in navigator)) return Promise.resolve(null);
  return navigator.serviceWorker.register('/sw.js').catch(() => null);
}

/** An error of the browser (permission, subscription), not of the server, in words. */
export class PushError extends Error {}

function fromB64url(s) {
  const b64 = String(s).replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** `promise`, or a PushError saying `late` after `ms` milliseconds. */
function within(promise, ms, late) {
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new PushError(late)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** How long the browser's push service has to answer a subscription. */
const SUBSCRIBE_MS = 15000;

function sameBytes(buffer, bytes) {
  if (!buffer) return false;
  const a = new Uint8Array(buffer);
  return a.length === bytes.length && a.every((b, i) => b === bytes[i]);
}

/**
 * Turns notices on for this device, named `device` (or after this browser): the server's
 * answer, the subscription as listed.
 */
export async function turnOnPush(device) {
  if (!pushAvailable()) throw new PushError(noPushText());
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') {
    throw new PushError(permission === 'denied'
      ? 'Notifications from Worp are blocked in this browser: allow them in the site\'s settings, then try again.'
      : 'Notifications were not allowed: try again, and choose “Allow”.');
  }
  await registerServiceWorker();
  const registration = await within(navigator.serviceWorker.ready, SUBSCRIBE_MS,
    'The page\'s service worker did not start: reload the page, and try again.');
  const { public_key: publicKey } = await api('GET', '/v1/push/key', { auth: false });
  const key = fromB64url(publicKey);
  let subscription = await registration.pushManager.getSubscription();
  if (subscription && !sameBytes(subscription.options.applicationServerKey, key)) {
    // Made with another server key: push services would refuse our signatures.
    await subscription.unsubscribe();
    subscription = null;
  }
  if (!subscription) {
    try {
      subscription = await within(registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }),
        SUBSCRIBE_MS, 'This browser could not subscribe to notifications (its push service did not answer): try again later, or from another browser.');
    } catch (e) {
      if (e instanceof PushError) throw e;
      throw new PushError(`This browser could not subscribe to notifications (${e && e.message ? e.message : e}): try again later, or from another browser.`);
    }
  }
  const body = subscription.toJSON();
  if (device) body.device = device;
  return api('POST', '/v1/players/me/push-subscriptions', { body });
}
