// pi-flows serve: the page's code, written by hand and shipped as is (no build step). It draws what the
// server sends and nothing else: the whole view first, then patches whose `from` must be the id it holds
// (any gap and it starts over from the whole view). Every string goes in through textContent; the one
// markup inserted is the report's graph, drawn and escaped by the server. Actions are POSTs with the
// page's CSRF token; their refusals are shown in the server's words.

(() => {
	const $ = (id) => document.getElementById(id);
	const csrf = document.querySelector('meta[name="pi-flows-csrf"]').getAttribute("content");

	/** An element with attributes and children (strings become text nodes, never markup). */
	function el(tag, attrs, ...children) {
		const e = document.createElement(tag);
		for (const [k, v] of Object.entries(attrs || {})) {
			if (v === undefined || v === null || v === false) continue;
			if (k === "class") e.className = v;
			else if (k === "on") for (const [ev, fn] of Object.entries(v)) e.addEventListener(ev, fn);
			else e.setAttribute(k, v === true ? "" : String(v));
		}
		for (const c of children.flat()) {
			if (c === undefined || c === null || c === false) continue;
			e.append(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
		}
		return e;
	}
	const clear = (node) => {
		while (node.firstChild) node.firstChild.remove();
		return node;
	};
	const fmt = {
		tokens: (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "?"),
		cost: (n) => (Number.isFinite(n) ? `$${n.toFixed(4)}` : "?"),
		ms(n) {
			if (!Number.isFinite(n) || n < 0) return "?";
			if (n < 1000) return `${Math.round(n)}ms`;
			if (n < 60000) return `${(n / 1000).toFixed(n < 10000 ? 2 : 1)}s`;
			const s = Math.round(n / 1000);
			if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
			return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
		},
		clock(iso) {
			const t = Date.parse(iso);
			return Number.isNaN(t)
				? String(iso || "")
				: new Date(t)
						.toISOString()
						.replace("T", " ")
						.replace(/\.\d+Z$/, "Z");
		},
	};
	const STATUS_WORDS = {
		running: "running",
		waiting: "waiting for an answer",
		stalled: "stalled",
		queued: "queued",
		stopping: "stopping",
		dead: "dead",
		ok: "ended well",
		failed: "failed",
		stopped: "stopped",
	};
	const STATE_WORDS = {
		running: "running",
		done: "done",
		failed: "failed",
		cut: "running when cut",
		never: "never reached",
	};

	async function post(path, body) {
		try {
			const r = await fetch(path, {
				method: "POST",
				credentials: "same-origin",
				headers: { "content-type": "application/json", "x-pi-flows-csrf": csrf },
				body: JSON.stringify(body || {}),
			});
			const j = await r.json().catch(() => ({ ok: false, said: `HTTP ${r.status}` }));
			return { ok: r.ok && j.ok, said: j.said || `HTTP ${r.status}` };
		} catch (error) {
			return { ok: false, said: `the server cannot be reached: ${error.message}` };
		}
	}

	const page = document.body.dataset.page;
	if (page === "runs") runsPage();
	else if (page === "run") runPage();

	function runsPage() {
		const es = new EventSource("/api/runs/events");
		es.addEventListener("runs", (m) => drawRuns(JSON.parse(m.data)));
	}

	function drawRuns(list) {
		const body = clear($("runs"));
		for (const r of list.runs) {
			body.append(
				el(
					"tr",
					{ class: `run status-${r.status}`, "data-run": r.id, "data-source": r.source },
					el("td", {}, el("a", { href: `/run/${r.source}/${encodeURIComponent(r.id)}` }, r.flow)),
					el(
						"td",
						{},
						el("span", { class: `badge status-${r.status}`, title: r.statusText }, STATUS_WORDS[r.status] || r.status),
					),
					el("td", {}, fmt.clock(r.started)),
					el("td", { class: "num" }, r.life),
					el("td", { class: "num" }, fmt.tokens(r.tokens)),
					el("td", { class: "num" }, fmt.cost(r.cost)),
					el("td", { class: "where" }, r.where, r.sealed ? "" : " (not made here by you)"),
				),
			);
		}
		$("empty").hidden = list.runs.length > 0;
		$("trust").hidden = !list.trust;
		$("trust").textContent = list.trust ? `${list.skipped} run(s) left out: ${list.trust}` : "";
		const problems = clear($("problems"));
		for (const p of list.problems) problems.append(el("li", {}, p));
	}

	function runPage() {
		const source = document.body.dataset.source;
		const id = document.body.dataset.run;
		const base = `/api/run/${source}/${encodeURIComponent(id)}`;
		let view = null;
		let seq = "";
		let skew = 0;
		let es = null;
		const now = () => Date.now() - skew;

		function connect() {
			es = new EventSource(`${base}/events`);
			es.addEventListener("view", (m) => {
				const d = JSON.parse(m.data);
				view = d.view;
				seq = d.id;
				skew = Date.now() - view.head.now;
				$("graph").innerHTML =
					d.graph || '<p class="empty">The flow no longer checks, so its graph cannot be drawn.</p>';
				drawn.clear();
				lanes.key = "";
				draw();
			});
			es.addEventListener("patch", (m) => {
				const d = JSON.parse(m.data);
				if (!view || d.from !== seq) {
					// A gap: this page's view is not the one the patch follows. Start over from the whole view.
					es.close();
					connect();
					return;
				}
				for (const [k, v] of Object.entries(d.set)) view[k] = v;
				for (const [k, m2] of Object.entries(d.maps)) {
					for (const [key, v] of Object.entries(m2.set)) view[k][key] = v;
					for (const key of m2.del) delete view[k][key];
				}
				seq = d.to;
				if (d.set.head) skew = Date.now() - view.head.now;
				if (d.graph !== undefined) {
					$("graph").innerHTML = d.graph;
					drawn.delete("graph");
				}
				draw();
			});
		}
		connect();
		setInterval(() => view && clocks(), 1000);

		async function act(action, body) {
			$("said").textContent = "…";
			const r = await post(`${base}/${action}`, body);
			$("said").textContent = r.said;
			$("said").className = `said ${r.ok ? "ok" : "refused"}`;
		}

		function draw() {
			const h = view.head;
			document.body.dataset.status = h.status;
			document.body.dataset.seq = seq;
			$("flow").textContent = h.flow;
			const badge = $("status");
			badge.textContent = STATUS_WORDS[h.status] || h.status;
			badge.className = `badge status-${h.status}`;
			$("status-text").textContent = h.statusText;
			$("description").textContent = h.description;
			// Parts a person types into or clicks are drawn again only when what they show changed.
			once("facts", [view.head, view.totals, view.budget, view.bounds], drawFacts);
			once("actions", [view.actions, view.inDoubt], drawActions);
			once("questions", view.questions, drawQuestions);
			once("outcome", view.outcome, drawOutcome);
			once("graph", view.nodes, drawGraph);
			once("turns", view.turns, drawTurns);
			drawLanes();
			once("nodes", [view.nodes, view.totals, view.head.status], drawNodes);
			once("faults", [view.faults, view.inDoubt, view.notes, view.retries], drawFaults);
			once("asked", view.asked, drawAsked);
		}

		const drawn = new Map();
		function once(part, value, draw) {
			const text = JSON.stringify(value ?? null);
			if (drawn.get(part) === text) return;
			drawn.set(part, text);
			draw();
		}

		function drawAsked() {
			const asked = clear($("asked"));
			for (const a of view.asked)
				asked.append(el("li", {}, el("code", {}, a.path), ` ${a.question} → `, el("strong", {}, a.answer)));
			if (!view.asked.length) asked.append(el("li", { class: "empty" }, "No question asked yet."));
		}

		function drawFacts() {
			const h = view.head;
			const t = view.totals;
			const facts = [
				["where", h.where],
				["flow file", h.file],
				["started", fmt.clock(h.started)],
				["life", `${h.life}${h.life > 1 ? " (resumed)" : ""}`],
				[
					"spent",
					`${fmt.tokens(t.usage.totalTokens)} tokens · ${fmt.cost(t.usage.cost)} · ${t.turns} turns · ${fmt.ms(t.wallMs)}`,
				],
			];
			if (view.budget) {
				const l = view.budget.limits;
				const s = view.budget.spent;
				const parts = [];
				if (l.tokens !== undefined) parts.push(`${fmt.tokens(s.tokens)} of ${fmt.tokens(l.tokens)} tokens`);
				if (l.cost !== undefined) parts.push(`${fmt.cost(s.cost)} of ${fmt.cost(l.cost)}`);
				if (l.turns !== undefined) parts.push(`${s.turns} of ${l.turns} turns`);
				facts.push(["budget", parts.join(", ")]);
			} else facts.push(["budget", "none"]);
			const b = view.bounds;
			facts.push([
				"bounds",
				`at most ${b.turns} turns, ${fmt.ms(b.ms)}${b.waits ? " plus a person's answer" : ""}${b.timeoutMs ? ` · --timeout ${fmt.ms(b.timeoutMs)}` : ""} · idle ${fmt.ms(b.idleMs)}`,
			]);
			const dl = clear($("facts"));
			for (const [k, v] of facts) dl.append(el("dt", {}, k), el("dd", { "data-fact": k }, v));
			if (view.budget?.limits.tokens) {
				const share = Math.min(1, view.budget.spent.tokens / view.budget.limits.tokens);
				dl.append(
					el("dt", {}, ""),
					el(
						"dd",
						{},
						el(
							"div",
							{ class: "meter", title: `${Math.round(share * 100)}% of the token budget` },
							el("div", { class: "fill", style: null }),
						),
					),
				);
				dl.lastChild.querySelector(".fill").style.width = `${Math.round(share * 100)}%`;
			}
		}

		function button(label, allowed, onClick, extra) {
			return el(
				"button",
				{
					type: "button",
					class: extra,
					disabled: !allowed.ok,
					title: allowed.ok ? undefined : allowed.why,
					on: { click: onClick },
				},
				label,
			);
		}

		function drawActions() {
			const a = view.actions;
			const box = clear($("actions"));
			box.append(button("Stop", a.stop, () => act("stop"), "stop"));
			if (view.inDoubt.length) {
				box.append(
					button(
						"Resume, running in-doubt visits again",
						a.resume,
						() => act("resume", { inDoubt: "rerun" }),
						"resume",
					),
				);
				box.append(button("Resume, leaving them", a.resume, () => act("resume", { inDoubt: "stop" }), "resume-stop"));
			} else box.append(button("Resume", a.resume, () => act("resume", { inDoubt: "stop" }), "resume"));
			box.append(button("Rerun from a node…", a.rerun, () => act("rerun", {}), "rerun"));
			const why = [a.stop, a.resume].filter((x) => !x.ok).map((x) => x.why);
			box.append(el("span", { class: "why" }, why.length === 2 && why[0] === why[1] ? why[0] : ""));
		}

		function drawQuestions() {
			const box = clear($("questions"));
			$("questions-now").hidden = view.questions.length === 0;
			for (const q of view.questions) {
				const c = q.card;
				const answer = (value, custom) =>
					act("answer", { life: q.life, visit: q.visit, answer: { kind: "answer", value, custom } });
				const card = el(
					"div",
					{ class: "card question", "data-visit": q.visit },
					el("h3", {}, c.header ? `${c.header} · ${q.visit}` : q.visit),
				);
				for (const r of c.reads) card.append(el("details", {}, el("summary", {}, r.address), el("pre", {}, r.text)));
				card.append(el("p", { class: "q" }, c.question));
				const choices = el("div", { class: "choices" });
				if (c.confirm) {
					choices.append(el("button", { type: "button", on: { click: () => answer(true) } }, "Yes"));
					choices.append(el("button", { type: "button", on: { click: () => answer(false) } }, "No"));
				} else if (c.options) {
					for (const o of c.options)
						choices.append(
							el(
								"button",
								{ type: "button", class: "option", title: o.description, on: { click: () => answer(o.label) } },
								o.label,
							),
						);
				}
				if (c.enough)
					choices.append(
						el(
							"button",
							{
								type: "button",
								on: { click: () => act("answer", { life: q.life, visit: q.visit, answer: { kind: "enough" } }) },
							},
							c.enough,
						),
					);
				card.append(choices);
				if (!c.confirm && (!c.options || c.open)) {
					const input = el("input", { type: "text", "aria-label": "your answer", placeholder: "your answer" });
					const form = el(
						"form",
						{
							class: "typed",
							on: {
								submit: (e) => {
									e.preventDefault();
									if (input.value.trim()) answer(input.value, Boolean(c.options));
								},
							},
						},
						input,
						el("button", { type: "submit" }, "Answer"),
					);
					card.append(form);
				}
				box.append(card);
			}
		}

		function drawOutcome() {
			const o = view.outcome;
			$("outcome").hidden = !o;
			const box = clear($("outcome-body"));
			if (!o) return;
			if (o.ok) box.append(el("pre", { class: "answer" }, o.output ?? ""));
			else
				box.append(
					el("p", { class: "problem" }, `${o.failedAt ? `at ${o.failedAt}: ` : ""}${o.error || "the run failed"}`),
				);
		}

		function drawGraph() {
			for (const shape of document.querySelectorAll("#graph [data-node]")) {
				const n = view.nodes[shape.getAttribute("data-node")];
				if (!n) continue;
				shape.setAttribute("data-state", n.state);
				shape.setAttribute("class", shape.getAttribute("class").replace(/state-\w+/, `state-${n.state}`));
				const visits = shape.parentNode.querySelector("text.visits");
				if (visits) {
					const parts = n.visits ? [`${n.visits} visit${n.visits === 1 ? "" : "s"}`] : ["never reached"];
					if (n.running) parts.push(`${n.running} running`);
					if (n.failed) parts.push(`${n.failed} failed`);
					visits.textContent = parts.join(" · ");
				}
			}
		}

		function drawTurns() {
			const box = clear($("turns"));
			const turns = Object.values(view.turns);
			if (!turns.length) box.append(el("p", { class: "empty" }, "No turn is running."));
			for (const t of turns) {
				const card = el(
					"div",
					{ class: `card turn turn-${t.state}`, "data-path": t.path },
					el(
						"h3",
						{},
						el("code", {}, t.path),
						` · ${t.agent}${t.model ? ` · ${t.model}` : ""} · `,
						el("span", { class: "clock", "data-since": t.since }, ""),
						t.state === "waiting" ? " · waiting" : "",
					),
				);
				if (t.tools.length)
					card.append(
						el(
							"ul",
							{ class: "tools" },
							t.toolCount > t.tools.length
								? el("li", { class: "note" }, `${t.toolCount - t.tools.length} earlier calls`)
								: null,
							t.tools.map((c) => el("li", {}, el("code", {}, c.tool), ` ${c.args}`)),
						),
					);
				if (t.text) card.append(el("pre", { class: "text" }, t.text));
				if (t.retries)
					card.append(el("p", { class: "warning" }, `${t.retries.count} request(s) sent again: ${t.retries.last}`));
				box.append(card);
			}
			clocks();
		}

		/** The lanes' rows and bars, kept between draws: a run of a thousand visits moves bars, it does not rebuild them. */
		const lanes = { key: "", tracks: [], bars: new Map() };
		const BLOCKS = ["map", "loop", "parallel", "choice", "flow"];

		function drawLanes() {
			const box = $("lanes");
			const h = view.head;
			const visits = Object.values(view.visits).filter((v) => v.life === h.life && v.lane >= 0);
			const key = `${h.life}\u0000${view.lanes.join("\u0000")}`;
			if (key !== lanes.key) {
				clear(box);
				lanes.key = key;
				lanes.bars.clear();
				lanes.tracks = view.lanes.map((label, i) => {
					const row = el(
						"div",
						{ class: "lane", "data-lane": i },
						el("div", { class: "lane-label", title: label }, label),
						el("div", { class: "lane-track" }),
					);
					box.append(row);
					return row.lastChild;
				});
			}
			if (!visits.length) {
				clear(box).append(el("p", { class: "empty" }, "No visit started in this life."));
				lanes.key = "";
				return;
			}
			const live = new Set();
			for (const v of visits) {
				const k = `${v.life}:${v.path}`;
				live.add(k);
				let bar = lanes.bars.get(k);
				if (!bar || bar.parentNode !== lanes.tracks[v.lane]) {
					bar?.remove();
					bar = el("div", { "data-path": v.path });
					lanes.tracks[v.lane]?.append(bar);
					lanes.bars.set(k, bar);
				}
				bar.className = `bar state-${v.state}${BLOCKS.includes(v.kind) ? " block" : ""}`;
				bar.title = `${v.path} (${v.kind}) · ${STATE_WORDS[v.state]}${v.agent ? ` · ${v.agent}` : ""}${v.model ? ` on ${v.model}` : ""}${v.error ? `\n${v.error}` : ""}`;
				bar.style.top = `${Math.min(v.depth, 3) * 5}px`;
			}
			for (const [k, bar] of lanes.bars)
				if (!live.has(k)) {
					bar.remove();
					lanes.bars.delete(k);
				}
			placeBars(now());
		}

		/** Each bar from its start to its end (or now, while it runs), on the current life's time axis. */
		function placeBars(t) {
			const h = view.head;
			let end = t;
			for (const v of Object.values(view.visits)) if (v.life === h.life && v.end > end) end = v.end;
			const span = Math.max(1, end - h.lifeStart);
			for (const [k, bar] of lanes.bars) {
				const v = view.visits[k];
				if (!v) continue;
				bar.style.left = `${((v.start - h.lifeStart) / span) * 100}%`;
				bar.style.width = `${Math.max(0.3, (((v.end || t) - v.start) / span) * 100)}%`;
			}
		}

		function drawNodes() {
			const order = [...document.querySelectorAll("#graph [data-node]")].map((s) => s.getAttribute("data-node"));
			const keys = Object.keys(view.nodes).sort(
				(a, b) => (order.indexOf(a) + 1 || 1e9) - (order.indexOf(b) + 1 || 1e9),
			);
			const body = clear($("nodes"));
			for (const a of keys) {
				const n = view.nodes[a];
				body.append(
					el(
						"tr",
						{ class: `state-${n.state}`, "data-node": a },
						el("td", {}, el("code", {}, a)),
						el("td", {}, STATE_WORDS[n.state]),
						el("td", { class: "num" }, n.visits),
						el("td", { class: "num" }, fmt.tokens(n.tokens)),
						el("td", { class: "num" }, fmt.cost(n.cost)),
						el("td", { class: "num" }, fmt.ms(n.ms)),
						el(
							"td",
							{ class: "num" },
							!n.bound
								? ""
								: n.bound.turns === 0 && n.bound.waits
									? "a person's answer"
									: `${n.bound.turns} turns · ${fmt.ms(n.bound.ms)}${n.bound.waits ? " + an answer" : ""}`,
						),
					),
				);
			}
			const t = view.totals.usage;
			clear($("total")).append(
				el(
					"tr",
					{},
					el("td", {}, "run"),
					el("td", {}, STATUS_WORDS[view.head.status]),
					el("td", { class: "num" }, view.totals.turns),
					el("td", { class: "num" }, fmt.tokens(t.totalTokens)),
					el("td", { class: "num" }, fmt.cost(t.cost)),
					el("td", { class: "num" }, fmt.ms(view.totals.wallMs)),
					el("td", { class: "num" }, `${view.bounds.turns} turns`),
				),
			);
		}

		function drawFaults() {
			const faults = clear($("faults"));
			for (const f of view.faults)
				faults.append(el("li", {}, f.path ? el("code", {}, f.path) : `life ${f.life}`, `: ${f.text}`));
			const doubt = clear($("indoubt"));
			for (const p of view.inDoubt)
				doubt.append(
					el("li", {}, el("code", {}, p), " was cut after a tool that writes: in doubt (its edits may be in the tree)"),
				);
			const notes = clear($("notes"));
			for (const n of view.notes) notes.append(el("li", {}, n));
			const retries = clear($("retries"));
			retries.closest("table").hidden = view.retries.length === 0;
			for (const r of view.retries)
				retries.append(
					el(
						"tr",
						{},
						el("td", {}, el("code", {}, r.path)),
						el("td", { class: "num" }, r.attempt + 1),
						el("td", {}, `${r.reason}: ${r.message}`),
						el("td", { class: "num" }, fmt.ms(r.delayMs)),
					),
				);
			if (!view.faults.length && !view.inDoubt.length && !view.notes.length && !view.retries.length)
				faults.append(el("li", { class: "empty" }, "None so far."));
		}

		function clocks() {
			const t = now();
			for (const c of document.querySelectorAll("#turns .clock"))
				c.textContent = fmt.ms(t - Number(c.getAttribute("data-since")));
			if (view) placeBars(t);
		}
	}
})();
