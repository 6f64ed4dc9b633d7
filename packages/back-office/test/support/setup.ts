// The page's CSS, as index.html loads it: the design tokens (--bo-*) every element reads, so
// that axe checks the real colours and focus rings.
import "../../src/global.css";
