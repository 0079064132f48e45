/**
 * {@link io.thriftnio.core.settings.SettingException}: how every builder of the library refuses a
 * setting. A package of its own, depending on nothing of the library, so that every package that
 * checks settings can use it without a cycle.
 */
package io.thriftnio.core.settings;
