-- wrk script for scripts/bench http: GET one user's entitlements per request, cycling through the
-- users the benchmark ingested (USERS of them), with the benchmark's API key.
local users = tonumber(os.getenv("USERS") or "1000")
local secret = os.getenv("SECRET") or "sl_bench"
local counter = 0

function setup(thread)
  thread:set("offset", math.random(0, users - 1))
end

function request()
  counter = counter + 1
  local user = ((offset or 0) + counter) % users
  return wrk.format("GET", "/v1/users/user-" .. user .. "/entitlements", { ["Authorization"] = "Bearer " .. secret })
end
