// The one exception type of Attend, defined with the public API (attend/error.h).
#pragma once
#include "attend/error.h"
