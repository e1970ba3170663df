// The account page's Vacation section: the days left this year, a vacation started for
// a number of days, or ended now. While it lasts the clocks of the player's
// correspondence games are paused and their opponents see until when.
import { h, api, fmtTime } from './core.js';

export function vacationSection() {
  const id = 'vacation-section';
  const body = h('div');
  const ok = h('p', { class: 'ok', role: 'status' });
  const err = h('p', { class: 'error', role: 'alert' });
  const say = (text) => { err.textContent = ''; ok.textContent = text; };
  const fail = (text) => { ok.textContent = ''; err.textContent = text; };
  const sec = h('section', { class: 'card', id, 'aria-labelledby': `${id}-h` },
    h('h2', { id: `${id}-h`, tabindex: -1 }, 'Vacation'),
    h('p', { class: 'muted' }, 'While you are on vacation the clocks of your correspondence games are paused: no time runs out, and your opponents see until when you are away.'),
    body, ok, err);

  async function load() {
    let v;
    try { v = await api('GET', '/v1/players/me/vacation'); } catch (e) { fail(e.message); return; }
    const left = h('p', { id: 'vacation-left' }, `${v.remaining_days} of ${v.allowance_days} days left in ${v.year}.`);
    if (v.current) {
      body.replaceChildren(left,
        h('p', { id: 'vacation-current' }, `You are on vacation until ${fmtTime(v.current.until)}.`),
        h('button', { type: 'button', id: 'end-vacation', onclick: async () => {
          try {
            await api('DELETE', '/v1/players/me/vacation');
            await load();
            say('Your vacation has ended: your clocks run again.');
          } catch (e) { fail(e.message); }
        } }, 'End my vacation now'));
      return;
    }
    const most = Math.max(1, v.remaining_days);
    const days = h('input', { id: 'vacation-days', type: 'number', min: 1, max: most, value: Math.min(7, most), required: true, inputmode: 'numeric' });
    const form = h('form', { id: 'vacation-form', onsubmit: async (e) => {
      e.preventDefault();
      try {
        const now = await api('POST', '/v1/players/me/vacation', { body: { days: Number(days.value) } });
        await load();
        say(`You are on vacation until ${fmtTime(now.current.until)}.`);
      } catch (ex) { fail(ex.message); }
    } },
    h('label', { for: 'vacation-days' }, 'Days of vacation, from now'), days,
    h('button', { type: 'submit', disabled: v.remaining_days < 1 }, 'Start my vacation'));
    body.replaceChildren(left, form);
  }
  load();
  return sec;
}
