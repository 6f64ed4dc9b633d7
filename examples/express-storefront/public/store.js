// The store's own script. The product cards' colours are set here, through the CSSOM, so the
// page's Content-Security-Policy can forbid inline styles.
for (const element of document.querySelectorAll("[data-swatch]")) {
  element.style.setProperty("--swatch", element.dataset.swatch);
}

// A variant picker, as a theme has one: the price shown and the product-points widget's
// `price` follow the chosen size; the widget asks for the points again by itself.
const picker = document.querySelector("form.add");
if (picker) {
  const euros = new Intl.NumberFormat("en-IE", { style: "currency", currency: "EUR" });
  picker.addEventListener("change", (event) => {
    const price = event.target.dataset?.price;
    if (!price) return;
    document.querySelector("[data-product-price]").textContent = euros.format(Number(price));
    document.querySelector("loyalty-product-points")?.setAttribute("price", price);
  });
}

// A code claimed in a widget goes in the cart. The store's server applies it only if it is one
// of the signed-in shopper's codes: the page's word is not enough.
document.addEventListener("loyalty-reward-claimed", (event) => {
  const { code } = event.detail;
  if (location.pathname === "/cart") {
    // The cart is shown again, with the code and what it takes off.
    const form = Object.assign(document.createElement("form"), {
      method: "post",
      action: "/cart/discount",
    });
    form.append(
      Object.assign(document.createElement("input"), { type: "hidden", name: "code", value: code }),
    );
    document.body.append(form);
    form.submit();
    return;
  }
  // Elsewhere the shopper stays where they are (the widget shows the code); a notice says where
  // it went.
  void applyElsewhere(code);
});

async function applyElsewhere(code) {
  const notice = document.querySelector("[data-cart-notice]");
  let applied = false;
  try {
    const response = await fetch("/cart/discount", {
      method: "POST",
      body: new URLSearchParams({ code }),
    });
    applied = new URL(response.url).searchParams.get("discount") === "applied";
  } catch {
    // Said below: the shopper can still type the code in the cart.
  }
  const link = Object.assign(document.createElement("a"), {
    href: "/cart",
    textContent: "See your cart",
  });
  notice.className = `notice ${applied ? "success" : "error"}`;
  notice.replaceChildren(
    applied
      ? `Your code ${code} is applied to your cart. `
      : `Your code ${code} could not be applied to your cart: type it there. `,
    link,
  );
}
