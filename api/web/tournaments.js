// Tournaments: the list (open to join, running, finished) with a form to create one, and
// a tournament's page: its players, standings with tie-breaks, and every round's games.
import { h, api, toast, account, variants, titleOf, playerLink, fmtTime } from './core.js';

const FORMATS = { swiss: 'Swiss', round_robin: 'round robin', knockout: 'knockout' };
const STATUS = { registering: 'open to join', running: 'running', finished: 'finished' };

/** "Swiss, 5 rounds", "round robin (double)", "knockout, matches to 3". */
function formatText(f) {
  if (f.kind === 'swiss') return `Swiss, ${f.rounds} round${f.rounds === 1 ? '' : 's'}`;
  if (f.kind === 'round_robin') return f.cycles === 2 ? 'double round robin' : 'round robin';
  return f.match_points ? `knockout, matches to ${f.match_points}` : 'knockout';
}

function summaryLine(t) {
  return [titleOf(t.variant), formatText(t.format), `${t.registered} of ${t.max_players} players`,
    t.table_size > 2 ? `${t.table_size} per game` : null, `${t.days_per_move} days per move`,
    t.rated ? 'rated' : 'not rated', t.invitation_only ? 'by invitation' : null].filter(Boolean).join(' · ');
}

export async function tournamentsView(main) {
  const vs = await variants();
  const me = account();
  const lists = {};
  const sections = ['registering', 'running', 'finished'].map((status) => {
    lists[status] = h('ul', { class: 'list', id: `tournaments-${status}` });
    const title = { registering: 'Open to join', running: 'Running', finished: 'Finished' }[status];
    return h('section', { class: 'card', 'aria-labelledby': `tournaments-${status}-h` },
      h(status === 'registering' ? 'h1' : 'h2', { id: `tournaments-${status}-h` }, status === 'registering' ? 'Tournaments open to join' : title),
      lists[status]);
  });
  main.append(...sections);
  if (me) main.append(createForm(vs));
  await Promise.all(Object.keys(lists).map(async (status) => {
    const page = await api('GET', `/v1/tournaments?status=${status}&limit=50`, { auth: false });
    lists[status].replaceChildren(...(page.tournaments.length ? page.tournaments.map((t) => h('li', { 'data-tournament': t.id },
      h('a', { href: `#/tournament/${t.id}`, class: 'tournament-link' }, t.name),
      h('span', { class: 'muted' }, summaryLine(t)))) : [h('li', { class: 'muted' }, 'None.')]));
  }));
}

function createForm(vs) {
  const field = (id, label, input, help) => [h('label', { for: id }, label), input,
    help ? h('p', { class: 'help', id: `${id}-help` }, help) : null];
  const name = h('input', { id: 't-name', name: 'name', required: true, maxlength: 100 });
  const variant = h('select', { id: 't-variant', name: 'variant' }, ...vs.map((v) => h('option', { value: v.name }, v.title)));
  const format = h('select', { id: 't-format', name: 'format' },
    ...Object.entries(FORMATS).map(([k, v]) => h('option', { value: k }, v)));
  const count = h('input', { id: 't-count', type: 'number', min: 1, max: 64, value: 5, 'aria-describedby': 't-count-help' });
  const max = h('input', { id: 't-max', type: 'number', min: 2, max: 256, value: 16 });
  const tableSize = h('input', { id: 't-table', type: 'number', min: 2, max: 6, value: 2, 'aria-describedby': 't-table-help' });
  const clock = h('select', { id: 't-clock' }, ...[1, 2, 3, 5, 7, 10, 14].map((d) => h('option', { value: d, selected: d === 3 }, `${d} day${d === 1 ? '' : 's'} per move`)));
  const roundDays = h('input', { id: 't-round-days', type: 'number', min: 1, max: 90, placeholder: 'no limit', 'aria-describedby': 't-round-days-help' });
  const rated = h('select', { id: 't-rated' }, h('option', { value: 'true' }, 'Rated'), h('option', { value: 'false' }, 'Not rated'));
  const late = h('input', { id: 't-late', type: 'number', min: 0, max: 64, value: 0, 'aria-describedby': 't-late-help' });
  const err = h('p', { class: 'error', role: 'alert' });
  const form = h('form', { class: 'card', id: 'tournament-form', onsubmit: async (e) => {
    e.preventDefault();
    err.textContent = '';
    const n = Number(count.value);
    const f = format.value === 'swiss' ? { kind: 'swiss', rounds: n }
      : format.value === 'round_robin' ? { kind: 'round_robin', cycles: n === 2 ? 2 : 1 }
        : (variant.value === 'backgammon' && n > 0 ? { kind: 'knockout', match_points: n } : { kind: 'knockout' });
    try {
      const t = await api('POST', '/v1/tournaments', { body: {
        name: name.value, variant: variant.value, format: f, max_players: Number(max.value),
        table_size: Number(tableSize.value), days_per_move: Number(clock.value),
        round_days: roundDays.value ? Number(roundDays.value) : null, rated: rated.value === 'true',
        late_registration_rounds: format.value === 'swiss' ? Number(late.value) : 0 } });
      location.hash = `#/tournament/${t.id}`;
    } catch (x) { err.textContent = x.message; }
  } },
  h('h2', {}, 'Create a tournament'),
  ...field('t-name', 'Name', name),
  ...field('t-variant', 'Game', variant),
  ...field('t-format', 'Format', format),
  ...field('t-count', 'Rounds, cycles or match points', count, 'Swiss: the rounds. Round robin: 1 or 2 cycles. Backgammon knockout: each pairing a match to this many points.'),
  ...field('t-max', 'Most players', max),
  ...field('t-table', 'Players per game', tableSize, 'Two for most games; Mens-erger-je-niet, Ludo and Ali Baba seat more and score by finishing place.'),
  ...field('t-clock', 'Clock', clock),
  ...field('t-round-days', 'Days per round', roundDays, 'At the end of a round the player to move in each unfinished game loses on time. Empty: a round lasts until its games end.'),
  ...field('t-rated', 'Rating', rated),
  ...field('t-late', 'Late registration (Swiss)', late, 'Players may still join while fewer than this many rounds are paired, with 0 points. 0: registration closes at the start.'),
  h('p', {}, h('button', { type: 'submit', id: 'create-tournament' }, 'Create tournament')), err);
  return form;
}

function resultText(result, names) {
  if (!result) return 'playing';
  if (result.draw) return 'draw';
  if (result.winner) return `${names(result.winner)} won`;
  return result.places.map((p, i) => `${i + 1}. ${names(p)}`).join(', ');
}

export async function tournamentView(main, id, { setCleanup }) {
  const me = account();
  const section = h('section', { class: 'card', 'aria-labelledby': 'tournament-h' });
  main.append(section);
  const act = async (method, path, done) => {
    try {
      await api(method, path, { body: method === 'DELETE' ? undefined : {} });
      toast(done);
      load();
    } catch (e) { toast(e.message, 6000); }
  };
  const load = async () => {
    const t = await api('GET', `/v1/tournaments/${encodeURIComponent(id)}`, { auth: false });
    const nameOf = new Map(t.players.map((p) => [p.player_id, p.name]));
    const names = (p) => (me && p === me.id ? 'you' : (nameOf.get(p) || 'a player'));
    const entry = me && t.players.find((p) => p.player_id === me.id);
    const registered = entry && entry.withdrawn_after_round === null;
    const buttons = [];
    if (me && t.status !== 'finished' && !registered && !entry) buttons.push(h('button', { type: 'button', id: 'register', onclick: () => act('POST', `/v1/tournaments/${id}/players`, 'You are registered.') }, 'Register'));
    if (registered && t.status !== 'finished') buttons.push(h('button', { type: 'button', class: 'secondary', id: 'withdraw', onclick: () => act('DELETE', `/v1/tournaments/${id}/players/me`, 'You have withdrawn.') }, 'Withdraw'));
    if (me && t.created_by === me.id && t.status === 'registering') buttons.push(h('button', { type: 'button', id: 'start', onclick: () => act('POST', `/v1/tournaments/${id}/start`, 'The tournament has started.') }, 'Start'));
    const standings = t.standings.length ? h('table', { id: 'standings' },
      h('caption', {}, 'Standings'),
      h('thead', {}, h('tr', {}, ...['Rank', 'Player', 'Points', 'Buchholz', 'Sonneborn-Berger', 'Games'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, ...t.standings.map((s) => h('tr', { 'data-player': s.player_id },
        h('td', {}, String(s.rank)), h('th', { scope: 'row' }, playerLink(s.player_id, s.name, { you: me && s.player_id === me.id }), s.withdrawn ? ' (withdrawn)' : ''),
        h('td', {}, String(s.points)), h('td', {}, String(s.buchholz)), h('td', {}, String(s.sonneborn_berger)), h('td', {}, String(s.games)))))) : null;
    const rounds = t.rounds.slice().reverse().map((r) => h('section', { 'aria-labelledby': `round-${r.number}-h`, 'data-round': r.number },
      h('h3', { id: `round-${r.number}-h` }, `Round ${r.number}`),
      h('ul', { class: 'list' }, ...r.tables.map((x) => h('li', { 'data-table': x.table },
        h('a', { href: `#/game/${x.game_id}`, class: 'game-link' }, `Table ${x.table}`),
        h('span', {}, x.seats.map(names).join(' – ')),
        h('span', { class: `badge${x.result ? '' : ' turn'}` }, resultText(x.result, names)))),
      ...r.byes.map((b) => h('li', { class: 'muted' }, `${names(b)}: a bye`)))));
    section.replaceChildren(
      h('h1', { id: 'tournament-h' }, t.name),
      h('p', {}, h('span', { class: 'badge', id: 'tournament-status' }, STATUS[t.status]), ' ', summaryLine(t)),
      h('p', { class: 'muted' }, `Created ${fmtTime(t.created_at)}`),
      buttons.length ? h('p', { class: 'row' }, ...buttons) : null,
      standings,
      h('h2', {}, 'Players'),
      h('ul', { class: 'list', id: 'tournament-players' }, ...(t.players.length ? t.players.map((p) => h('li', {},
        playerLink(p.player_id, p.name, { you: me && p.player_id === me.id }), ` rating ${p.rating}`,
        p.withdrawn_after_round !== null ? ' (withdrawn)' : '')) : [h('li', { class: 'muted' }, 'Nobody has registered yet.')])),
      t.rounds.length ? h('h2', {}, 'Rounds') : null,
      ...rounds);
  };
  await load();
  const timer = setInterval(() => load().catch(() => {}), 10000);
  setCleanup(() => clearInterval(timer));
}
