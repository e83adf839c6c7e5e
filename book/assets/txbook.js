// The book's own script, loaded in <head> (theme/head.hbs) before anything
// else: the reading language (中文 / EN / both), bilingual sidebar titles,
// and search in Chinese.
//
// Language: a ?lang=zh|en|both in the address (a link to a page in one
// language), else the reader's last choice, else the browser's language. It
// is set as a class on <html> before the page paints; CSS hides the other
// language. Without JavaScript no class is set and both languages show.
//
// Sidebar titles are written "中文 | English" in SUMMARY.md (mdBook keeps no
// HTML there); they are split into two spans here so the switch can hide one.
(function () {
    'use strict';
    var KEY = 'txbook-lang';

    function valid(l) { return l === 'zh' || l === 'en' || l === 'both'; }

    (function setLanguageNow() {
        var l = null;
        try {
            var asked = (/[?&]lang=(zh|en|both)\b/.exec(location.search) || [])[1];
            if (asked) { localStorage.setItem(KEY, asked); }
            l = asked || localStorage.getItem(KEY);
        } catch (e) { /* storage blocked: fall back to the browser's language */ }
        if (!valid(l)) { l = /^zh\b/i.test(navigator.language || '') ? 'zh' : 'en'; }
        document.documentElement.classList.add('txbook-' + l);
        if (l === 'zh') { document.documentElement.lang = 'zh-CN'; }
    })();
    var CHOICES = [['zh', '中文', '只看中文'], ['en', 'EN', 'English only'], ['both', '中/EN', '双语 · both languages']];

    function current() {
        var c = document.documentElement.classList;
        return c.contains('txbook-zh') ? 'zh' : c.contains('txbook-en') ? 'en' : 'both';
    }

    function choose(lang) {
        var root = document.documentElement;
        root.classList.remove('txbook-zh', 'txbook-en', 'txbook-both');
        root.classList.add('txbook-' + lang);
        root.lang = lang === 'zh' ? 'zh-CN' : 'en';
        try { localStorage.setItem(KEY, lang); } catch (e) { /* not remembered */ }
        document.querySelectorAll('.txbook-lang-switch button').forEach(function (b) {
            b.setAttribute('aria-pressed', String(b.dataset.lang === lang));
        });
    }

    function addSwitch() {
        var bar = document.querySelector('.right-buttons');
        if (!bar || bar.querySelector('.txbook-lang-switch')) { return; }
        var group = document.createElement('div');
        group.className = 'txbook-lang-switch';
        group.setAttribute('role', 'group');
        group.setAttribute('aria-label', '语言 · Language');
        CHOICES.forEach(function (c) {
            var b = document.createElement('button');
            b.type = 'button';
            b.dataset.lang = c[0];
            b.textContent = c[1];
            b.title = c[2];
            b.setAttribute('aria-pressed', String(current() === c[0]));
            b.addEventListener('click', function () { choose(c[0]); });
            group.appendChild(b);
        });
        bar.insertBefore(group, bar.firstChild);
    }

    // "中文 | English" text → <span lang=zh>中文</span><span class=txbook-sep> | </span><span lang=en>English</span>
    function splitTitles(root) {
        var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        var nodes = [];
        while (walker.nextNode()) {
            if (walker.currentNode.nodeValue.indexOf(' | ') > 0) { nodes.push(walker.currentNode); }
        }
        nodes.forEach(function (node) {
            var parts = node.nodeValue.split(' | ');
            if (parts.length !== 2) { return; }
            var lead = /^\s*/.exec(parts[0])[0];
            parts[0] = parts[0].slice(lead.length);
            var frag = document.createDocumentFragment();
            if (lead) { frag.append(document.createTextNode(lead)); }
            var zh = document.createElement('span');
            zh.lang = 'zh';
            zh.textContent = parts[0];
            var sep = document.createElement('span');
            sep.className = 'txbook-sep';
            sep.textContent = ' | ';
            var en = document.createElement('span');
            en.lang = 'en';
            en.textContent = parts[1];
            frag.append(zh, sep, en);
            node.parentNode.replaceChild(frag, node);
        });
    }

    function splitSidebar() {
        document.querySelectorAll('.sidebar, .sidebar-scrollbox, mdbook-sidebar-scrollbox, .nav-chapters, .mobile-nav-chapters')
            .forEach(splitTitles);
    }

    // Search in Chinese. mdBook's index keeps only [0-9a-z_] tokens, so a
    // query like 掩码 finds nothing. The index does store every section's
    // full text, so a query with Chinese is answered by substring matching
    // over that text: every Chinese run and every other word must occur;
    // sections rank by occurrences, with a bonus for a match in the title.
    // Queries without Chinese, and any future mdBook without a document
    // store, keep mdBook's own behaviour.
    function patchSearch(lunr) {
        if (!lunr || !lunr.Index || lunr.Index.prototype.txbookPatched) { return; }
        var stock = lunr.Index.prototype.search;
        var HAN = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+/g;
        lunr.Index.prototype.search = function (query, config) {
            var docs = this.documentStore && this.documentStore.docs;
            if (typeof query !== 'string' || !HAN.test(query) || !docs) {
                return stock.call(this, query, config);
            }
            HAN.lastIndex = 0;
            var terms = query.toLowerCase().split(/\s+/).filter(Boolean);
            var count = function (text, term) {
                var n = 0, at = text.indexOf(term);
                while (at !== -1) { n += 1; at = text.indexOf(term, at + term.length); }
                return n;
            };
            var results = [];
            Object.keys(docs).forEach(function (ref) {
                var doc = docs[ref];
                var title = String(doc.title || '').toLowerCase();
                var text = title + '\n' + String(doc.breadcrumbs || '').toLowerCase() + '\n' + String(doc.body || '').toLowerCase();
                var score = 0;
                for (var i = 0; i < terms.length; i++) {
                    var n = count(text, terms[i]);
                    if (n === 0) { return; }
                    score += n + (title.indexOf(terms[i]) !== -1 ? 5 : 0);
                }
                results.push({ ref: ref, score: score, doc: doc });
            });
            results.sort(function (a, b) { return b.score - a.score; });
            return results;
        };
        lunr.Index.prototype.txbookPatched = true;
    }

    // elasticlunr is loaded after this script, and a search from the address
    // (?search=…) can run as soon as it is. Patch it the moment it is defined.
    (function patchWhenLoaded() {
        if (window.elasticlunr) { patchSearch(window.elasticlunr); return; }
        var lunr;
        try {
            Object.defineProperty(window, 'elasticlunr', {
                configurable: true,
                enumerable: true,
                get: function () { return lunr; },
                set: function (value) { lunr = value; patchSearch(value); }
            });
        } catch (e) { /* cannot hook: Chinese queries stay unanswered */ }
    })();

    function start() {
        addSwitch();
        splitSidebar();
        if (window.customElements && customElements.whenDefined) {
            customElements.whenDefined('mdbook-sidebar-scrollbox').then(splitSidebar);
        }
    }

    if (document.readyState === 'loading') {
        document.addEventListener('DOMContentLoaded', start);
    } else {
        start();
    }
})();
