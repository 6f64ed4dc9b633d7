import "./global.css";
import { BoApp } from "./app/app.js";
import { changeLocale, preferredLocale } from "./i18n/locale.js";
import { define } from "./ui/element.js";

// The router matches URLs with URLPattern: browsers without it (Safari < 26, Firefox < 142)
// fetch the polyfill first.
if (!("URLPattern" in globalThis)) await import("urlpattern-polyfill");
// The chosen language is in place before the first render: no flash of English.
await changeLocale(preferredLocale(), { persist: false });
// <bo-app> is in index.html: it starts once defined.
define("bo-app", BoApp);
