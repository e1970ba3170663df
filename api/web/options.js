// A game's options in plain words: the fields of the new-game form and a summary of a
// game's options. The fields are built from the variant's JSON Schema (`options_schema`),
// so a game the table below does not know still gets a working form; the table gives the
// known options a label, a help text and a widget a player understands.
import { h } from './core.js';

const MEJN_COLOURS = { names: ['Red', 'Blue', 'Yellow', 'Green', 'Purple', 'Orange'],
  hex: ['#d32f2f', '#1565c0', '#f9a825', '#2e7d32', '#7b1fa2', '#ef6c00'] };
const LUDO_COLOURS = { names: ['Red', 'Green', 'Yellow', 'Blue'], hex: ['#d32f2f', '#2e7d32', '#f9a825', '#1565c0'] };

/** Per variant, per option: label, help, and the widget where the schema's is not the best. */
export const OPTION_WORDS = {
  ali_baba: {
    planks: { label: 'Planks on the bridge', help: 'How long the bridge is: 1 to 20 planks (6 in the original game). Fewer planks make a shorter game.' },
  },
  backgammon: {
    match_length: { label: 'Match length (points)', placeholder: 'single game', help: '0 plays a single game; 1 to 25 plays a match to that many points (with the doubling cube unless you turn it off).' },
    cube: { label: 'Doubling cube', usual: 'Usual: off in a single game, on in a match', help: 'A player may offer to double the stakes before rolling; the other takes or passes (and loses).' },
    crawford: { label: 'Crawford rule', usual: 'Usual: on', help: 'In a match, nobody may double in the first game after a player gets within one point of winning.' },
    jacoby: { label: 'Jacoby rule', usual: 'Usual: on', help: 'With the cube in a single game, a gammon or backgammon counts as a single game while nobody has doubled.' },
  },
  mens_erger_je_niet: {
    board: { label: 'Board', help: null, choices: [[4, 'Four colours (40 fields)', 'four colours'], [6, 'Six colours (48 fields)', 'six colours']] },
    colours: { label: 'Colours of each player', widget: 'colour-sets', colours: MEJN_COLOURS, count: (o) => Number(o.board) || 4,
      help: 'One colour per player, or two when there are fewer players than colours. Leave "Usual colours" ticked for the usual choice (opposite colours for two players).' },
    three_tries: { label: 'Three tries for a 6', help: 'A player with no pawn that can move rolls up to three times for a 6 (a house rule, not in the original game).' },
  },
  ludo: {
    colours: { label: 'Colour of each player', widget: 'colour-each', colours: LUDO_COLOURS, count: () => 4,
      help: 'Every player a different colour. Leave "Usual colours" ticked for the usual choice (opposite colours for two players).' },
    die: { label: 'Die', help: 'The special die has a globe for 3 and a star for 5; with the plain die pawns finish up a home column.', choices: [['special', 'Special die: 1, 2, globe (3), 4, star (5), 6', 'special (globe and star)'], ['plain', 'Plain die: 1 to 6, with a home column', 'plain']] },
    pawns: { label: 'Pawns per player', help: '1 to 4 (4 in the original game); fewer pawns make a shorter game.' },
  },
  hoofden: {
    movement: { label: 'How pawns move', help: null, choices: [['basic', 'One square diagonally forward (a yellow head also backward)', 'one square'], ['by_head', 'The colour of the head gives the number of steps', 'steps by the head\'s colour']] },
    forced_attack: { label: 'Attacking is compulsory', help: 'A player who can land on an opposing pawn must do so (choosing which).' },
  },
};

/** An option name as words: `forced_attack` → "Forced attack". */
function humanise(key) {
  const s = key.replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A schema's description without engine notation: ranges, backticks, line breaks. */
export function plainHelp(text) {
  return (text || '').split('\n').join(' ')
    .replace(/(\w+)\s*\.\.=\s*(\w+)/g, '$1 to $2')
    .replace(/(\w+)\s*\.\.\s*(\w+)/g, '$1 to $2 (not included)')
    .replace(/`/g, '');
}

export function resolveSchema(schema, root) {
  let s = schema || {};
  for (let i = 0; i < 8; i++) {
    if (s.$ref) {
      const name = s.$ref.replace('#/$defs/', '');
      s = { ...(root.$defs || {})[name], ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$ref')) };
    } else if (s.oneOf && s.oneOf.length === 1) {
      const { oneOf, ...rest } = s;
      s = { ...oneOf[0], ...rest, description: rest.description || oneOf[0].description };
    } else if (s.allOf && s.allOf.length === 1) {
      const { allOf, ...rest } = s;
      s = { ...allOf[0], ...rest };
    } else break;
  }
  if (s.oneOf && s.oneOf.every((o) => o.enum || o.const !== undefined || o.$ref)) {
    const values = [];
    for (const o of s.oneOf) {
      const r = resolveSchema(o, root);
      if (r.enum) values.push(...r.enum); else if (r.const !== undefined) values.push(r.const);
    }
    if (values.length) s = { ...s, enum: values };
  }
  return s;
}

function field(id, label, input, help, { inline = false } = {}) {
  const helpId = help ? `${id}-help` : null;
  if (helpId) input.setAttribute('aria-describedby', helpId);
  return h('div', { class: 'field' },
    inline ? h('label', { class: 'inline', for: id }, input, label) : [h('label', { for: id }, label), input],
    help ? h('p', { class: 'help', id: helpId }, help) : null);
}

/** A select of `[value, text]` pairs; values travel as JSON. */
function choiceSelect(id, key, pairs, def) {
  return h('select', { id, name: key },
    ...pairs.map(([v, t]) => h('option', { value: JSON.stringify(v), selected: JSON.stringify(v) === JSON.stringify(def) }, t)));
}

/**
 * Colours per seat: `each` one distinct colour per seat (a select each), `sets` one or two
 * colours per seat (checkboxes). A "Usual colours" box leaves the option out.
 */
function colourWidget(id, key, words, kind) {
  const box = h('fieldset', { id, class: 'colours', 'data-kind': kind });
  let usual;
  let rows = [];
  let drawn = '';
  const swatch = (c) => h('span', { class: 'swatch', style: `background:${words.colours.hex[c]}`, 'aria-hidden': 'true' });
  const draw = (seats, count) => {
    const key2 = `${seats}/${count}`;
    if (key2 === drawn) return;
    drawn = key2;
    const keepUsual = usual ? usual.checked : true;
    usual = h('input', { type: 'checkbox', id: `${id}-usual`, checked: keepUsual });
    const names = words.colours.names.slice(0, count);
    rows = Array.from({ length: seats }, (_, i) => {
      if (kind === 'each') {
        const sel = h('select', { id: `${id}-${i}`, 'aria-label': `Colour of player ${i + 1}` },
          ...names.map((n, c) => h('option', { value: c, selected: c === (i * Math.floor(count / seats)) % count }, n)));
        return { el: h('div', { class: 'row' }, h('label', { for: `${id}-${i}`, class: 'inline' }, `Player ${i + 1}`), sel), read: () => [Number(sel.value)] };
      }
      const boxes = names.map((n, c) => h('input', { type: 'checkbox', id: `${id}-${i}-${c}`, value: c, checked: c === Math.floor((i * count) / seats) }));
      return {
        el: h('fieldset', { class: 'row colour-set' }, h('legend', {}, `Player ${i + 1}`),
          ...names.map((n, c) => h('label', { class: 'inline', for: `${id}-${i}-${c}` }, boxes[c], swatch(c), n))),
        read: () => boxes.filter((b) => b.checked).map((b) => Number(b.value)),
      };
    });
    const rowsBox = h('div', { class: 'colour-rows', hidden: keepUsual });
    rowsBox.append(...rows.map((r) => r.el));
    usual.addEventListener('change', () => { rowsBox.hidden = usual.checked; });
    box.replaceChildren(h('legend', {}, words.label),
      h('label', { class: 'inline', for: `${id}-usual` }, usual, 'Usual colours'), rowsBox,
      words.help ? h('p', { class: 'help' }, words.help) : null);
  };
  const read = () => {
    if (!usual || usual.checked) return null;
    const v = rows.map((r) => r.read());
    if (kind === 'each') return v.map((x) => x[0]);
    if (v.some((x) => x.length === 0)) throw new Error(`${words.label}: give every seat a colour.`);
    return v;
  };
  return { wrap: box, read, update: (ctx) => draw(ctx.seats, words.count(ctx.options)) };
}

/**
 * The form field of option `key` of `variant`: `{wrap, read, update?}`. `read()` gives
 * the value to send (undefined: leave it out); `update({seats, options})` redraws a
 * field that depends on the number of seats or another option.
 */
export function optionField(variant, key, schema, root, def) {
  const s = resolveSchema(schema, root);
  const words = (OPTION_WORDS[variant] || {})[key] || {};
  const id = `opt-${key}`;
  const types = [].concat(s.type || []);
  const label = words.label || humanise(key);
  let help = 'help' in words ? words.help : plainHelp(s.description);
  if (words.widget === 'colour-each' || words.widget === 'colour-sets') {
    return colourWidget(id, key, { ...words, label }, words.widget === 'colour-each' ? 'each' : 'sets');
  }
  if (words.choices || s.enum) {
    const pairs = words.choices || s.enum.map((v) => [v, humanise(String(v))]);
    const input = choiceSelect(id, key, pairs, def);
    return { wrap: field(id, label, input, help), read: () => JSON.parse(input.value) };
  }
  if (types.includes('boolean') && types.includes('null')) {
    const input = choiceSelect(id, key, [[null, words.usual || 'Usual'], [true, 'On'], [false, 'Off']], def ?? null);
    return { wrap: field(id, label, input, help), read: () => JSON.parse(input.value) };
  }
  if (types.includes('boolean')) {
    const input = h('input', { id, name: key, type: 'checkbox', checked: !!def });
    return { wrap: field(id, label, input, help, { inline: true }), read: () => input.checked };
  }
  if (types.includes('integer') || types.includes('number')) {
    const input = h('input', { id, name: key, type: 'number', inputmode: 'numeric', value: def ?? '', placeholder: words.placeholder, min: s.minimum, max: s.maximum,
      step: types.includes('integer') ? 1 : 'any', required: !types.includes('null') });
    if (!words.help && s.minimum !== undefined && s.maximum !== undefined) help = `${help} (${s.minimum} to ${s.maximum})`.trim();
    return {
      wrap: field(id, label, input, help),
      read: () => {
        if (input.value === '') return types.includes('null') ? null : undefined;
        if (!input.checkValidity()) throw new Error(`${label}: ${input.validationMessage}`);
        return Number(input.value);
      },
    };
  }
  if (types.includes('string') && types.length === 1) {
    const input = h('input', { id, name: key, value: def ?? '' });
    return { wrap: field(id, label, input, help), read: () => input.value };
  }
  // Anything else (lists, objects): JSON, the last resort for an option no table knows.
  const input = h('input', { id, name: key, value: def === null || def === undefined ? '' : JSON.stringify(def), class: 'mono' });
  return {
    wrap: field(id, label, input, `${help} Written as JSON; leave empty for the usual.`.trim()),
    read: () => {
      if (input.value.trim() === '') return null;
      try { return JSON.parse(input.value); } catch { throw new Error(`${label}: not valid JSON`); }
    },
  };
}

/** A game's options in words, e.g. "Planks on the bridge: 3; Die: Plain die". */
export function describeOptions(variant, options) {
  const table = OPTION_WORDS[variant] || {};
  const parts = [];
  for (const [k, v] of Object.entries(options || {})) {
    if (v === null || v === undefined) continue;
    const w = table[k] || {};
    let text;
    if (w.choices) {
      const c = w.choices.find(([x]) => JSON.stringify(x) === JSON.stringify(v));
      text = c ? c[2] || c[1] : String(v);
    }
    else if (w.colours && Array.isArray(v)) text = v.map((x) => [].concat(x).map((c) => w.colours.names[c] || c).join(' + ')).join(', ');
    else if (typeof v === 'boolean') text = v ? 'on' : 'off';
    else text = typeof v === 'object' ? JSON.stringify(v) : String(v);
    if (k === 'match_length' && variant === 'backgammon') parts.push(v ? `match to ${v} points` : 'single game');
    else parts.push(`${w.label || humanise(k)}: ${text}`);
  }
  return parts.join('; ');
}
