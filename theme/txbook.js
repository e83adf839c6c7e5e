// The reading-language switch (中文 / EN / both) and bilingual sidebar titles.
//
// Sidebar titles are written "中文 | English" in SUMMARY.md (mdBook keeps no
// HTML there); they are split into two spans here so the switch can hide
// one. The choice is stored in localStorage and applies to every page.
(function () {
    'use strict';
    var KEY = 'txbook-lang';
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
