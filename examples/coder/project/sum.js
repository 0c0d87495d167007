// Adds up a list of prices given in cents.
export function total(prices) {
  let sum = 0;
  for (let i = 1; i < prices.length; i++) sum += prices[i];
  return sum;
}
