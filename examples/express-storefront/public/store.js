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

// A store may apply a claimed code to the cart; the demo shows it in the console.
document.addEventListener("loyalty-reward-claimed", (event) => {
  console.info(`Reward claimed: ${event.detail.code}`);
});
