// Everything of Attend's public C++ API.
#pragma once
#include "attend/error.h"
#include "attend/translation.h"
#include "attend/translator.h"
